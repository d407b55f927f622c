import XCTest
@testable import imgfetch
@testable import ImageFetch

/// Lists as they come from Windows, spreadsheets and hostile sources: CRLF line ends, a UTF-8 byte
/// order mark, lines without an end, NUL bytes, lines longer than the 64 KiB cap.
final class ListParserTests: XCTestCase {
    private func split(_ bytes: [UInt8], chunk: Int = 1 << 16, maxLength: Int = ListLine.maxLength) -> [ListLine] {
        var splitter = ListLineSplitter(maxLength: maxLength)
        var lines: [ListLine] = []
        var start = 0
        while start < bytes.count {
            lines += splitter.feed(Array(bytes[start..<min(bytes.count, start + chunk)]))
            start += chunk
        }
        if let last = splitter.finish() { lines.append(last) }
        return lines
    }

    private func texts(_ lines: [ListLine]) -> [String] { lines.map { String(decoding: $0.bytes, as: UTF8.self) } }

    private func item(_ line: ListLine) -> ListItem? {
        if case .item(let item) = ListParser.parse(line, currentDirectory: "/work") { return item }
        return nil
    }

    func testCRLFAndAByteOrderMarkAreStripped() {
        let list = Array("\u{FEFF}http://a.test/1.jpg\r\n\r\n# comment\r\nhttp://a.test/2.jpg alt=http://a.test/3.jpg\r\nhttp://a.test/4.jpg".utf8)
        for chunk in [1, 2, 3, 7, 1 << 16] {   // a pipe may cut anywhere, even inside the mark or the CRLF
            let lines = split(list, chunk: chunk)
            XCTAssertEqual(texts(lines), ["http://a.test/1.jpg", "", "# comment", "http://a.test/2.jpg alt=http://a.test/3.jpg", "http://a.test/4.jpg"], "chunks of \(chunk)")
            XCTAssertEqual(lines.map(\.number), [1, 2, 3, 4, 5])
        }
        let lines = split(list)
        XCTAssertEqual(item(lines[0])?.source.description, "http://a.test/1.jpg")
        XCTAssertEqual(ListParser.parse(lines[1]), .skip, "a blank CRLF line is blank, not the file <cwd>/\\r")
        XCTAssertEqual(ListParser.parse(lines[2]), .skip)
        XCTAssertEqual(item(lines[3])?.alternatives.map(\.description), ["http://a.test/3.jpg"], "CRLF after a per-line option")
        XCTAssertEqual(item(lines[4])?.source.description, "http://a.test/4.jpg")
    }

    func testAByteOrderMarkCountsOnlyOnLineOne() {
        let lines = split(Array("a\n\u{FEFF}b\n".utf8))
        XCTAssertEqual(lines[0].bytes, Array("a".utf8))
        XCTAssertEqual(lines[1].bytes, Array("\u{FEFF}b".utf8), "only the start of the list may carry a mark")
    }

    func testLineEndsAndTheLastLine() {
        XCTAssertEqual(texts(split(Array("a\nb".utf8))), ["a", "b"], "no final line end")
        XCTAssertEqual(texts(split(Array("a\n".utf8))), ["a"])
        XCTAssertEqual(texts(split(Array("\n\n".utf8))), ["", ""])
        XCTAssertEqual(texts(split([])), [])
        XCTAssertEqual(texts(split(Array("a\r\r\n".utf8))), ["a"])
        XCTAssertEqual(texts(split(Array("a\rb\n".utf8))), ["a\rb"], "a CR inside a line is the parser's whitespace")
    }

    func testALineLongerThanTheCapIsReportedOnceAndSkipped() {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 300)
        for chunk in [1, 13, 64, 1 << 16] {
            let lines = split(Array("ok1\n".utf8) + long + Array("\nok2\n".utf8), chunk: chunk, maxLength: 100)
            XCTAssertEqual(lines.count, 3, "chunks of \(chunk): \(texts(lines))")
            XCTAssertEqual(lines.map(\.isTooLong), [false, true, false])
            XCTAssertEqual(lines.map(\.number), [1, 2, 3])
            XCTAssertEqual(lines[1].bytes.count, ListLineSplitter.excerptLength, "only the excerpt is kept")
            XCTAssertEqual(texts([lines[2]]), ["ok2"], "the next line is read whole")
        }
        let exact = [UInt8](repeating: UInt8(ascii: "y"), count: 100)
        XCTAssertEqual(split(exact + [10], maxLength: 100).map(\.isTooLong), [false], "a line of exactly the cap is kept")
        XCTAssertEqual(split(exact + [UInt8(ascii: "y")], maxLength: 100).map(\.isTooLong), [true], "one byte more is too long")
        XCTAssertEqual(ListLine.maxLength, 65_536)
    }

    func testATooLongLineNeverShowsAPasswordCutBeforeItsAt() {
        let line = "http://user:hunter2" + String(repeating: "s", count: 200) + "@example.com/a.jpg"
        let lines = split(Array(line.utf8) + [10], maxLength: 100)
        XCTAssertEqual(lines.map(\.isTooLong), [true])
        guard case .malformed(_, let message) = ListParser.parse(lines[0]) else { return XCTFail("not malformed") }
        XCTAssertFalse(message.contains("hunter2"), message)
        XCTAssertTrue(message.contains("http://"), message)
    }

    func testAStreamWithoutLineEndsHoldsBoundedMemory() {
        var splitter = ListLineSplitter()
        let zeros = [UInt8](repeating: 0, count: 1 << 16)
        var lines: [ListLine] = []
        for _ in 0..<160 { lines += splitter.feed(zeros) }   // 10 MiB, no line end
        XCTAssertEqual(lines.count, 1, "reported once, as soon as it passes the cap")
        XCTAssertTrue(lines[0].isTooLong)
        XCTAssertNil(splitter.finish(), "the rest of the line is skipped, not returned")
        guard case .malformed(1, let message) = ListParser.parse(lines[0]) else { return XCTFail("\(ListParser.parse(lines[0]))") }
        XCTAssertTrue(message.contains("64 KiB"), message)
        XCTAssertTrue(message.contains("\\x00"), "control bytes are escaped: \(message)")
        XCTAssertLessThan(message.utf8.count, 300, message)
    }

    func testMalformedLinesQuoteShortEscapedText() {
        let long = "http://" + String(repeating: "a", count: 5000) + " bogus" + String(repeating: "b", count: 5000)
        guard case .malformed(7, let message) = ListParser.parse(ListLine(number: 7, long)) else { return XCTFail() }
        XCTAssertLessThan(message.count, 200, message)
        guard case .malformed(1, let escaped) = ListParser.parse(ListLine(number: 1, "ftp://x\u{1B}[31m")) else { return XCTFail() }
        XCTAssertFalse(escaped.contains("\u{1B}"), "no terminal escape reaches stderr: \(escaped)")
        XCTAssertTrue(escaped.contains("\\x1B[31m"), escaped)
        guard case .malformed(2, let nul) = ListParser.parse(ListLine(number: 2, bytes: Array("/tmp/a.jpg".utf8) + [0] + Array("b".utf8))) else {
            return XCTFail("a NUL byte would cut a path short")
        }
        XCTAssertTrue(nul.contains("NUL"), nul)
        let comment = ListLine(number: 3, bytes: Array("  # a very long comment".utf8), isTooLong: true)
        XCTAssertEqual(ListParser.parse(comment), .skip, "a long comment is still a comment")
    }

    func testTheCounterCountsSourceLinesOnly() {
        func count(_ text: String, chunk: Int = 1 << 16) -> Int {
            var counter = ListSourceCounter()
            let bytes = Array(text.utf8)
            var start = 0
            while start < bytes.count {
                bytes[start..<min(bytes.count, start + chunk)].withUnsafeBytes { counter.feed($0) }
                start += chunk
            }
            return counter.count
        }
        let list = "\u{FEFF}# header\r\n\r\nhttp://a/1\r\n  \t\r\n  http://a/2 alt=x\n#x\nftp://malformed-counts\nlast-without-end"
        for chunk in [1, 2, 5, 1 << 16] { XCTAssertEqual(count(list, chunk: chunk), 4, "chunks of \(chunk)") }
        XCTAssertEqual(count(""), 0)
        XCTAssertEqual(count("\u{FEFF}"), 0)
        XCTAssertEqual(count("\u{FEFF}#c\n"), 0, "a mark before a comment")
        XCTAssertEqual(count("\u{FEFF}a\n"), 1)
        XCTAssertEqual(count("\n\n\n"), 0)
        // The counter and the parser agree on what is a source line.
        let lines = split(Array(list.utf8))
        let parsed = lines.filter { ListParser.parse($0, currentDirectory: "/") != .skip }
        XCTAssertEqual(parsed.count, 4)
    }
}
