import XCTest
@testable import imgfetch
@testable import ImageFetch

/// A list line's fields over UTF-8 bytes (`asciiFieldsOf`) are the fields by `Character`, for every
/// line the byte path takes; other lines take the `Character` path.
final class ListFieldsTests: XCTestCase {
    /// The bytes that steer the split (blanks, CR, quotes, backslashes, `=`, `#`) and a few others.
    static let alphabet = Array("ab=#\"\\ \t\r/:.x".utf8)

    private func same(_ a: Result<[Substring], ListParser.FieldProblem>, _ b: Result<[Substring], ListParser.FieldProblem>) -> Bool {
        switch (a, b) {
        case (.success(let x), .success(let y)): x.map(String.init) == y.map(String.init) && x.map(\.startIndex) == y.map(\.startIndex)
        case (.failure(let x), .failure(let y)): x.message == y.message
        default: false
        }
    }

    func testTheByteSplitAgreesWithTheCharacterSplitOnRandomLines() {
        var rng = SystemRandomNumberGenerator()
        var unterminated = 0
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...30, using: &rng)).map { _ in Self.alphabet.randomElement(using: &rng)! }
            let line = Substring(String(decoding: bytes, as: UTF8.self))
            guard let fast = ListParser.asciiFieldsOf(line) else { return XCTFail("an ASCII line without a LF takes the byte path: \(line.debugDescription)") }
            XCTAssertTrue(same(fast, ListParser.fieldsByCharacter(line)), "fields of \(line.debugDescription)")
            if case .failure = fast { unterminated += 1 }
        }
        XCTAssertGreaterThan(unterminated, 0, "some lines end inside a quote")
    }

    func testNamedLinesAgreeAndOtherTextTakesTheCharacterPath() throws {
        let lines = ["", "   ", "http://a/b.jpg", "  http://a/b.jpg\talt=http://c/d.jpg  name=x\r",
                     #"http://a/ header="Referer: http://b/" user-agent="x \" y""#, #"a "b c"d e"#, #"x="unterminated"#,
                     #"x="a\"#, "# a comment", "http://a/ # trailing"]
        for text in lines {
            let line = Substring(text)
            let fast = try XCTUnwrap(ListParser.asciiFieldsOf(line), text)
            XCTAssertTrue(same(fast, ListParser.fieldsByCharacter(line)), text)
        }
        guard case .success(let fields) = ListParser.fieldsOf(#"  http://a/b.jpg  header="A: b c"  "#) else { return XCTFail("fields") }
        XCTAssertEqual(fields, ["http://a/b.jpg", #"header="A: b c""#])
        // A space before a combining mark is one Character with it: not a blank to the Character split,
        // which non-ASCII text takes; CR LF is one Character too.
        XCTAssertNil(ListParser.asciiFieldsOf("http://a/x \u{301}y.jpg"))
        XCTAssertNil(ListParser.asciiFieldsOf("http://a/x\r\ny"))
        guard case .success(let marked) = ListParser.fieldsOf("http://a/x \u{301}y.jpg") else { return XCTFail("fields") }
        XCTAssertEqual(marked.count, 1)
    }

    /// The URL that split keeps whole still has a raw space, and is refused for it, as a line and as
    /// a SOURCE (a Character-wise check let it through).
    func testASpaceBeforeACombiningMarkIsARawSpace() {
        guard case .malformed(_, let message) = ListParser.parse("http://a.example/x \u{301}y.jpg", line: 1) else {
            return XCTFail("the line is malformed")
        }
        XCTAssertTrue(message.contains("raw space"), message)
        XCTAssertThrowsError(try Source(parsing: "http://a.example/x \u{301}y.jpg"))
    }
}
