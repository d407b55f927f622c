import ArgumentKit
import XCTest

final class OutcomeTests: XCTestCase {
    func testHelpAnywhere() throws {
        XCTAssertEqual(try Fixtures.root.parse(["--help"]), .help(path: []))
        XCTAssertEqual(try Fixtures.root.parse(["-h"]), .help(path: []))
        XCTAssertEqual(try Fixtures.root.parse(["get", "--help"]), .help(path: ["get"]))
        XCTAssertEqual(try Fixtures.root.parse(["get", "URL", "-s", "1", "-h"]), .help(path: ["get"]))
        XCTAssertEqual(try Fixtures.root.parse(["cache", "ls", "-h"]), .help(path: ["cache", "ls"]))
        XCTAssertEqual(try Fixtures.root.parse(["get", "-fh"]), .help(path: ["get"]))
    }

    func testHelpBeatsUsageErrors() throws {
        // Missing SOURCE is not reported when help was asked for.
        XCTAssertEqual(try Fixtures.root.parse(["get", "-h"]), .help(path: ["get"]))
        // An error before --help still yields help for the path reached so far.
        XCTAssertEqual(try Fixtures.root.parse(["get", "--bogus", "--help"]), .help(path: ["get"]))
        XCTAssertEqual(try Fixtures.root.parse(["gte", "--help"]), .help(path: []))
        XCTAssertEqual(try Fixtures.root.parse(["cache", "--help"]), .help(path: ["cache"]))
    }

    func testHelpAfterDoubleDashIsPositional() throws {
        guard case .command(let command) = try Fixtures.root.parse(["get", "--", "-h"]) else { return XCTFail() }
        XCTAssertEqual(command.positionals, ["-h"])
    }

    func testHelpTakesNoValue() {
        XCTAssertEqual(Fixtures.errorMessage(["--help=x"]), "option '--help' takes no value")
    }

    func testCommandThatClaimsShortH() throws {
        let spec = CommandSpec(name: "t", options: [.value("height", short: "h", help: "Height.")])
        guard case .command(let command) = try spec.parse(["-h", "10"]) else { return XCTFail() }
        XCTAssertEqual(command.value("height"), "10")
        XCTAssertEqual(try spec.parse(["--help"]), .help(path: []))
    }

    func testVersionAtRootOnly() throws {
        XCTAssertEqual(try Fixtures.root.parse(["--version"]), .version)
        XCTAssertEqual(try Fixtures.root.parse(["-v", "--version"]), .version)
        XCTAssertEqual(Fixtures.errorMessage(["get", "--version"]), "unknown option '--version'")
        XCTAssertEqual(try Fixtures.root.parse(["--version", "--help"]), .help(path: []))
    }
}
