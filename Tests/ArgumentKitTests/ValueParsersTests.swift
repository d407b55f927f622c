import ArgumentKit
import XCTest

final class ValueParsersTests: XCTestCase {
    private func rejects<T>(_ convert: (String) throws(UsageError) -> T, _ inputs: [String],
                            file: StaticString = #filePath, line: UInt = #line) {
        for input in inputs {
            do {
                let value = try convert(input)
                XCTFail("'\(input)' was accepted as \(value)", file: file, line: line)
            } catch {
                XCTAssertTrue(error.message.hasPrefix("expected"), error.message, file: file, line: line)
            }
        }
    }

    func testByteSize() throws {
        XCTAssertEqual(try ValueParsers.byteSize("512"), 512)
        XCTAssertEqual(try ValueParsers.byteSize("0"), 0)
        XCTAssertEqual(try ValueParsers.byteSize("10B"), 10)
        XCTAssertEqual(try ValueParsers.byteSize("1K"), 1024)
        XCTAssertEqual(try ValueParsers.byteSize("1k"), 1024)
        XCTAssertEqual(try ValueParsers.byteSize("10M"), 10_485_760)
        XCTAssertEqual(try ValueParsers.byteSize("10mb"), 10_485_760)
        XCTAssertEqual(try ValueParsers.byteSize("10MiB"), 10_485_760)
        XCTAssertEqual(try ValueParsers.byteSize("2G"), 2 * 1_073_741_824)
        XCTAssertEqual(try ValueParsers.byteSize("1T"), 1_099_511_627_776)
        XCTAssertEqual(try ValueParsers.byteSize("1.5K"), 1536)
    }

    func testByteSizeRejects() {
        rejects(ValueParsers.byteSize, ["10X", "-1", "-1M", "", "M", "B", "abc", "1 M", "1.2.3K", "10IB", "99999999T", "1e3", "inf"])
    }

    func testDuration() throws {
        XCTAssertEqual(try ValueParsers.duration("30"), 30)
        XCTAssertEqual(try ValueParsers.duration("30s"), 30)
        XCTAssertEqual(try ValueParsers.duration("15m"), 900)
        XCTAssertEqual(try ValueParsers.duration("12H"), 43_200)
        XCTAssertEqual(try ValueParsers.duration("7d"), 604_800)
        XCTAssertEqual(try ValueParsers.duration("1.5h"), 5_400)
        XCTAssertEqual(try ValueParsers.duration("0.25"), 0.25)
    }

    func testDurationRejects() {
        rejects(ValueParsers.duration, ["5y", "-5s", "", "s", "abc", "1h30m", "nan", "inf", "1e3"])
    }

    func testPositiveInt() throws {
        XCTAssertEqual(try ValueParsers.positiveInt("1"), 1)
        XCTAssertEqual(try ValueParsers.positiveInt("42"), 42)
        rejects(ValueParsers.positiveInt, ["0", "-3", "1.5", "", "x", "99999999999999999999999"])
    }

    func testFraction() throws {
        let half = try ValueParsers.fraction("2/5")
        XCTAssertEqual(half.k, 2)
        XCTAssertEqual(half.n, 5)
        let whole = try ValueParsers.fraction("1/1")
        XCTAssertEqual(whole.k, 1)
        XCTAssertEqual(whole.n, 1)
        rejects(ValueParsers.fraction, ["3/2", "0/2", "1/0", "2", "1/2/3", "a/b", "-1/2", "1/", "/2", "1.0/2"])
    }

    func testOneOf() throws {
        let convert = ValueParsers.oneOf(["png", "jpeg"])
        XCTAssertEqual(try convert("png"), "png")
        rejects(convert, ["PNG", "gif"])
    }
}
