import XCTest
@testable import imgfetch
@testable import ImageFetch

/// Per-line options of a prefetch list, and what messages show of them.
final class ListLineOptionsTests: XCTestCase {
    func testListLineRedaction() {
        let line = #"https://u:pw1@h/a.jpg user=bob:pw2 cookie=sid=pw3 header="Authorization: Bearer pw4" header="X-A: ok""#
        let shown = ListParser.redact(line)
        for secret in ["pw1", "pw2", "pw3", "pw4"] { XCTAssertFalse(shown.contains(secret), shown) }
        XCTAssertTrue(shown.contains("X-A: ok"), shown)
    }

    /// Characters whose lower-case form has another UTF-8 length, and quotes inside unquoted values,
    /// do not let a secret through (a review found both).
    func testListLineRedactionHoldsWithAnyCharacterAndAnyQuote() {
        for line in [#"https://h/a.jpg user=alice:PW2secret İ ""#, #"https://h/a.jpg user=alice:PW2secret Ⱥ K"#,
                     #"https://h/a.jpg user=alice:ab"PW2secret"#, #"https://h/a.jpg cookie=sid=ab"PW2secret x"#] {
            let shown = ListParser.redact(line)
            XCTAssertFalse(shown.contains("PW2secret"), shown)
        }
    }

    /// libcurl's messages quote the URLs they were given (a proxy's): every userinfo is redacted.
    func testURLsInsideAMessageAreRedacted() {
        let message = "Unsupported proxy syntax in 'http://u:PXsecret2@h:99999' and ftp://v:PYsecret@x/y, not a@b"
        let shown = Source.redactingURLs(in: message)
        XCTAssertFalse(shown.contains("PXsecret2") || shown.contains("PYsecret"), shown)
        XCTAssertTrue(shown.contains("http://u:***@h:99999") && shown.contains("ftp://v:***@x/y") && shown.contains("a@b"), shown)
    }

    func testListLineOptionsAreQuotedAndParsed() throws {
        guard case .item(let item) = ListParser.parse(#"https://h/a.jpg header="Referer: https://a.example/" user-agent="A b" name=x"#, line: 1) else {
            return XCTFail("not parsed")
        }
        XCTAssertEqual(item.headers, [.init(name: "Referer", value: "https://a.example/")])
        XCTAssertEqual(item.userAgent, "A b")
        XCTAssertEqual(item.name, "x")
        guard case .malformed(_, let message) = ListParser.parse(#"https://h/a.jpg header="unterminated"#, line: 1) else {
            return XCTFail("an unterminated quote is malformed")
        }
        XCTAssertTrue(message.contains("unterminated"), message)
    }
}
