import ArgumentKit
import XCTest

final class TypedAccessorTests: XCTestCase {
    private func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return (error as? UsageError)?.message ?? "not a UsageError: \(error)"
        }
    }

    func testIntAccessor() throws {
        let command = try Fixtures.command(["get", "--retry", "3", "u"])
        XCTAssertEqual(try command.int("retry"), 3)
        XCTAssertEqual(try command.int("retry", range: 0...5), 3)
        XCTAssertNil(try Fixtures.command(["get", "u"]).int("retry"))
    }

    func testIntErrors() throws {
        let bad = try Fixtures.command(["get", "--retry", "abc", "u"])
        XCTAssertEqual(message { _ = try bad.int("retry") }, "invalid value 'abc' for '--retry': expected an integer")
        let big = try Fixtures.command(["get", "--retry=50", "u"])
        XCTAssertEqual(
            message { _ = try big.int("retry", range: 0...10) },
            "invalid value '50' for '--retry': expected an integer in 0...10")
        do {
            _ = try big.int("retry", range: 0...10)
        } catch {
            XCTAssertEqual(error.commandPath, ["get"])
        }
    }

    func testDoubleAccessor() throws {
        XCTAssertEqual(try Fixtures.command(["get", "--quality", "0.5", "u"]).double("quality"), 0.5)
        let bad = try Fixtures.command(["get", "--quality", "nan", "u"])
        XCTAssertEqual(message { _ = try bad.double("quality") }, "invalid value 'nan' for '--quality': expected a number")
        let high = try Fixtures.command(["get", "--quality", "2", "u"])
        XCTAssertEqual(
            message { _ = try high.double("quality", range: 0...1) },
            "invalid value '2' for '--quality': expected a number in 0.0...1.0")
    }

    func testGenericParseWithValueParsers() throws {
        let command = try Fixtures.command(["get", "--max-size", "10M", "--max-age=7d", "--shard", "2/5", "u"])
        XCTAssertEqual(try command.parse("max-size", ValueParsers.byteSize), 10 * 1024 * 1024)
        XCTAssertEqual(try command.parse("max-age", ValueParsers.duration), 7 * 86_400)
        let shard = try command.parse("shard", ValueParsers.fraction)
        XCTAssertEqual(shard?.k, 2)
        XCTAssertEqual(shard?.n, 5)
        XCTAssertNil(try command.parse("retry", ValueParsers.positiveInt))
    }

    func testGenericParseErrorsNameValueAndOption() throws {
        let command = try Fixtures.command(
            ["get", "--max-size", "10X", "--max-age", "5y", "--shard", "3/2", "--retry", "0", "u"])
        XCTAssertEqual(
            message { _ = try command.parse("max-size", ValueParsers.byteSize) },
            "invalid value '10X' for '--max-size': expected a byte size such as 512K, 10M or 1G")
        XCTAssertEqual(
            message { _ = try command.parse("max-age", ValueParsers.duration) },
            "invalid value '5y' for '--max-age': expected a duration such as 30s, 15m, 12h or 7d")
        XCTAssertEqual(
            message { _ = try command.parse("shard", ValueParsers.fraction) },
            "invalid value '3/2' for '--shard': expected K/N with 1 <= K <= N, such as 2/5")
        XCTAssertEqual(
            message { _ = try command.parse("retry", ValueParsers.positiveInt) },
            "invalid value '0' for '--retry': expected a positive integer")
    }

    func testCustomConverterAndParseAll() throws {
        let command = try Fixtures.command(["get", "--alt", "1", "--alt", "2", "--low-data=auto", "u"])
        let doubled = try command.parseAll("alt") { (text: String) throws(UsageError) -> Int in
            guard let value = Int(text) else { throw UsageError("expected a number") }
            return value * 2
        }
        XCTAssertEqual(doubled, [2, 4])
        XCTAssertEqual(try command.parse("low-data", ValueParsers.oneOf(["auto", "always"])), "auto")
        let wrong = try Fixtures.command(["get", "--low-data=never", "u"])
        XCTAssertEqual(
            message { _ = try wrong.parse("low-data", ValueParsers.oneOf(["auto", "always"])) },
            "invalid value 'never' for '--low-data': expected one of: auto, always")
    }

    private struct OddError: Error, CustomStringConvertible {
        var description: String { "expected an even number" }
    }

    func testUnannotatedClosureAndForeignErrorType() throws {
        let command = try Fixtures.command(["get", "--retry", "3", "u"])
        XCTAssertEqual(
            message {
                _ = try command.parse("retry") { text in
                    guard let number = Int(text), number % 2 == 0 else { throw OddError() }
                    return number
                }
            },
            "invalid value '3' for '--retry': expected an even number")
        XCTAssertEqual(try command.parse("retry") { text in Int(text) ?? 0 }, 3)
    }

    func testCallerErrorHelper() throws {
        let command = try Fixtures.command(["cache", "ls"])
        let error = command.error("--json and --quiet conflict")
        XCTAssertEqual(error.commandPath, ["cache", "ls"])
        XCTAssertEqual(error.message, "--json and --quiet conflict")
    }
}
