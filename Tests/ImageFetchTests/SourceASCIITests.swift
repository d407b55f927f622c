import XCTest
@testable import ImageFetch

/// The byte-wise http(s) checks give what the `Character` ones give, for every ASCII text without a
/// CR, and decline any other text (which then takes the `Character` path).
final class SourceASCIITests: XCTestCase {
    /// The bytes that steer the checks (delimiters, brackets, port digits, case), and a few others.
    static let alphabet = Array("aZ09/?#@[]:.-_%~!&=+ \t\nA".utf8)

    func testTheByteChecksAgreeWithTheCharacterChecksOnRandomURLs() {
        var rng = SystemRandomNumberGenerator()
        var declined = 0
        for i in 0..<20_000 {
            let prefix = ["http://", "https://", "HTTP://", "http:/", ""][i % 5]
            let body = (0..<Int.random(in: 0...24, using: &rng)).map { _ in Self.alphabet.randomElement(using: &rng)! }
            let text = prefix + String(decoding: body, as: UTF8.self)
            for scheme in ["http", "https"] {
                let slow = Source.hasValidAuthorityByCharacter(text, scheme: scheme)
                guard let fast = Source.asciiHasValidAuthority(text, scheme: scheme) else { declined += 1; continue }
                XCTAssertEqual(fast, slow, "authority of \(text.debugDescription) (\(scheme))")
                XCTAssertEqual(Source.asciiNormalizeHTTP(text, scheme: scheme), Source.normalizeHTTPByCharacter(text, scheme: scheme),
                               "normal form of \(text.debugDescription) (\(scheme))")
            }
        }
        XCTAssertEqual(declined, 0, "every ASCII text without a CR takes the byte path")
    }

    func testNamedCasesAgreeAndNonASCIITakesTheCharacterPath() throws {
        let urls = ["http://Example.COM", "https://User:PW@Host.Example:8443/P?Q#F", "http://[::1]:80/x", "http://[::1]x",
                    "http://[]", "http://h:123456/", "http://h:/", "http://@/", "http://a@b@C/", "HTTP://H?q", "http://",
                    "https://host.example/a b", "http://host_name%20/x#", "http://h:12:34/"]
        for text in urls {
            XCTAssertEqual(Source.asciiHasValidAuthority(text, scheme: "http"), Source.hasValidAuthorityByCharacter(text, scheme: "http"), text)
            XCTAssertEqual(Source.asciiNormalizeHTTP(text, scheme: "http"), Source.normalizeHTTPByCharacter(text, scheme: "http"), text)
        }
        XCTAssertNotNil(try? Source(parsing: "https://Bücher.example/Ä"), "a non-ASCII host is still checked, by Character")
        XCTAssertNil(Source.asciiHasValidAuthority("https://bücher.example/", scheme: "https"))
        XCTAssertNil(Source.asciiNormalizeHTTP("http://h/a\r\nb", scheme: "http"), "CR LF is one Character: the byte path declines it")
        XCTAssertEqual(try Source(parsing: "HTTPS://Example.COM:443?x").description, "https://example.com:443/?x")
        guard case .http(let url) = try Source(parsing: "https://User@Example.COM/P") else { return XCTFail("an http source") }
        XCTAssertEqual(url, "https://User@example.com/P", "the user information keeps its case, the host does not")
    }
}
