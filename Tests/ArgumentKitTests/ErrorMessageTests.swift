import ArgumentKit
import XCTest

final class ErrorMessageTests: XCTestCase {
    func testUnknownOptionWithSuggestion() {
        XCTAssertEqual(Fixtures.errorMessage(["get", "--sise", "1", "u"]), "unknown option '--sise' (did you mean '--size'?)")
        XCTAssertEqual(Fixtures.errorMessage(["get", "--jsno", "u"]), "unknown option '--jsno' (did you mean '--json'?)")
        XCTAssertEqual(Fixtures.errorMessage(["get", "--verbsoe", "u"]), "unknown option '--verbsoe' (did you mean '--verbose'?)")
        XCTAssertEqual(Fixtures.errorMessage(["get", "--frobnicate", "u"]), "unknown option '--frobnicate'")
    }

    func testHiddenOptionsAreNotSuggested() throws {
        XCTAssertEqual(Fixtures.errorMessage(["get", "--debug-trac", "u"]), "unknown option '--debug-trac'")
        XCTAssertTrue(try Fixtures.command(["get", "--debug-trace", "u"]).flag("debug-trace"))
    }

    func testUnknownShortOption() {
        XCTAssertEqual(Fixtures.errorMessage(["get", "-x", "u"]), "unknown option '-x'")
        XCTAssertEqual(Fixtures.errorMessage(["get", "-qx", "u"]), "unknown option '-x' in '-qx'")
    }

    func testMissingValue() {
        XCTAssertEqual(Fixtures.errorMessage(["get", "u", "--size"]), "option '--size' needs a value")
        XCTAssertEqual(Fixtures.errorMessage(["get", "u", "-s"]), "option '-s' needs a value")
        XCTAssertEqual(Fixtures.errorMessage(["get", "u", "--size", "--json"]), "option '--size' needs a value")
        XCTAssertEqual(Fixtures.errorMessage(["get", "u", "--size", "--"]), "option '--size' needs a value")
    }

    func testFlagTakesNoValue() {
        XCTAssertEqual(Fixtures.errorMessage(["get", "u", "--json=yes"]), "option '--json' takes no value")
    }

    func testUnexpectedArgument() {
        XCTAssertEqual(Fixtures.errorMessage(["get", "u", "x"]), "unexpected argument 'x'")
        XCTAssertEqual(Fixtures.errorMessage(["cache", "clear", "x"]), "unexpected argument 'x'")
    }

    func testMissingPositional() {
        XCTAssertEqual(Fixtures.errorMessage(["get"]), "missing SOURCE")
        XCTAssertEqual(Fixtures.errorMessage(["get", "--json"]), "missing SOURCE")
    }

    func testUnknownCommandWithSuggestion() {
        XCTAssertEqual(Fixtures.errorMessage(["gte", "u"]), "unknown command 'gte' (did you mean 'get'?)")
        XCTAssertEqual(Fixtures.errorMessage(["cache", "sl"]), "unknown command 'sl' (did you mean 'ls'?)")
        XCTAssertEqual(Fixtures.errorMessage(["zzzzzz"]), "unknown command 'zzzzzz'")
    }

    func testMissingSubcommand() {
        XCTAssertEqual(Fixtures.errorMessage([]), "missing command (expected one of: get, cache, copy)")
        XCTAssertEqual(Fixtures.errorMessage(["cache"]), "missing command (expected one of: ls, clear)")
    }

    func testErrorCarriesCommandPathAndDescription() {
        do {
            _ = try Fixtures.root.parse(["cache", "ls", "--bogus"])
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error.commandPath, ["cache", "ls"])
            XCTAssertEqual(error.description, "unknown option '--bogus'")
            XCTAssertEqual("\(error)", error.message)
        }
    }

    func testEditDistanceThreshold() {
        let spec = CommandSpec(name: "t", options: [.flag("size", help: ""), .flag("x", help: "")])
        XCTAssertThrowsError(try spec.parse(["--sizzzz"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "unknown option '--sizzzz'", "distance 3: no suggestion")
        }
        XCTAssertThrowsError(try spec.parse(["--sze"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "unknown option '--sze' (did you mean '--size'?)")
        }
        XCTAssertThrowsError(try spec.parse(["--y"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "unknown option '--y'", "too short to suggest")
        }
    }
}
