import ArgumentKit
import XCTest

final class ParserTests: XCTestCase {
    func testSpecTreeIsValid() {
        XCTAssertEqual(Fixtures.root.validationProblems(), [])
    }

    func testValidationProblemsReportMistakes() {
        let bad = CommandSpec(name: "t", options: [.flag("x", short: "x", help: ""), .flag("x", short: "x", help: "")],
                              positionals: [PositionalSpec(name: "A", help: "", arity: .zeroOrMore),
                                            PositionalSpec(name: "B", help: "", arity: .optional)],
                              subcommands: [CommandSpec(name: "s"), CommandSpec(name: "s")])
        XCTAssertEqual(bad.validationProblems(), [
            "t: duplicate option '--x'", "t: duplicate short option '-x'",
            "t: positional B after a variadic one must have arity .one", "t: duplicate subcommand 's'",
        ])
    }

    func testSubcommandPath() throws {
        let command = try Fixtures.command(["cache", "ls", "--json"])
        XCTAssertEqual(command.path, ["cache", "ls"])
        XCTAssertTrue(command.flag("json"))
        XCTAssertEqual(command.positionals, [])
        XCTAssertEqual(try Fixtures.command(["cache", "clear"]).path, ["cache", "clear"])
    }

    /// Where each value was (argument index, byte offset): what a caller needs to blank a secret in argv.
    func testValueLocationsPointAtTheValueInEachForm() throws {
        let arguments = ["get", "-s", "1x1", "--size=2x2", "-s3x3", "-fs=4x4", "--alt", "é", "u"]
        let command = try Fixtures.command(arguments)
        XCTAssertEqual(command.values("size"), ["1x1", "2x2", "3x3", "4x4"])
        let located = command.valueLocations("size").map { l in
            String(decoding: Array(arguments[l.argument].utf8)[l.offset...], as: UTF8.self)
        }
        XCTAssertEqual(located, ["1x1", "2x2", "3x3", "4x4"])
        XCTAssertEqual(command.valueLocations("alt"), [ValueLocation(argument: 7, offset: 0)])
        XCTAssertEqual(command.valueLocations("json"), [])
        // Where the values were does not make two parses of the same meaning differ.
        XCTAssertEqual(try Fixtures.command(["get", "-s", "1x1", "u"]), try Fixtures.command(["get", "--size=1x1", "u"]))
    }

    func testLongOptionSeparateAndAttachedValue() throws {
        XCTAssertEqual(try Fixtures.command(["get", "--size", "320x240", "u"]).value("size"), "320x240")
        XCTAssertEqual(try Fixtures.command(["get", "--size=320x240", "u"]).value("size"), "320x240")
        XCTAssertEqual(try Fixtures.command(["get", "--size=a=b", "u"]).value("size"), "a=b")
        XCTAssertEqual(try Fixtures.command(["get", "--size=", "u"]).value("size"), "")
    }

    func testShortOptionForms() throws {
        XCTAssertEqual(try Fixtures.command(["get", "-s", "320", "u"]).value("size"), "320")
        XCTAssertEqual(try Fixtures.command(["get", "-s320", "u"]).value("size"), "320")
        XCTAssertEqual(try Fixtures.command(["get", "-s=320", "u"]).value("size"), "320")
    }

    func testClusteredShortFlags() throws {
        let command = try Fixtures.command(["get", "-qvf", "u"])
        XCTAssertTrue(command.flag("quiet"))
        XCTAssertTrue(command.flag("verbose"))
        XCTAssertTrue(command.flag("force"))
        XCTAssertFalse(command.flag("json"))
    }

    func testClusterEndingInValueOption() throws {
        let attached = try Fixtures.command(["get", "-fs320", "u"])
        XCTAssertTrue(attached.flag("force"))
        XCTAssertEqual(attached.value("size"), "320")
        let separate = try Fixtures.command(["get", "-fs", "320", "u"])
        XCTAssertEqual(separate.value("size"), "320")
        XCTAssertEqual(separate.positionals, ["u"])
    }

    func testCountOfRepeatedFlag() throws {
        XCTAssertEqual(try Fixtures.command(["get", "-vvv", "u"]).count("verbose"), 3)
        XCTAssertEqual(try Fixtures.command(["get", "u"]).count("verbose"), 0)
    }

    func testDoubleDashEndsOptions() throws {
        let command = try Fixtures.command(["get", "--json", "--", "-x"])
        XCTAssertTrue(command.flag("json"))
        XCTAssertEqual(command.positionals, ["-x"])
        XCTAssertEqual(command.positional("SOURCE"), "-x")
        XCTAssertEqual(try Fixtures.command(["get", "--", "--help"]).positionals, ["--help"])
    }

    func testLoneDashIsPositional() throws {
        let command = try Fixtures.command(["get", "-"])
        XCTAssertEqual(command.positionals, ["-"])
        XCTAssertEqual(try Fixtures.command(["get", "-o", "-", "u"]).value("output"), "-")
    }

    func testRepeatedOptionCollectedInOrder() throws {
        let command = try Fixtures.command(["get", "--alt", "A", "u", "-a", "B", "--alt=C"])
        XCTAssertEqual(command.values("alt"), ["A", "B", "C"])
        XCTAssertEqual(command.value("alt"), "C")
    }

    func testRepeatedNonRepeatableOptionLastWins() throws {
        let command = try Fixtures.command(["get", "-s", "1x1", "--size", "2x2", "u"])
        XCTAssertEqual(command.value("size"), "2x2")
        XCTAssertEqual(command.values("size"), ["1x1", "2x2"])
    }

    func testOptionsAfterPositionals() throws {
        let command = try Fixtures.command(["get", "URL", "-s", "100", "--json"])
        XCTAssertEqual(command.positionals, ["URL"])
        XCTAssertEqual(command.value("size"), "100")
        XCTAssertTrue(command.flag("json"))
    }

    func testFlagOrValue() throws {
        let bare = try Fixtures.command(["get", "--low-data", "u"])
        XCTAssertTrue(bare.flag("low-data"))
        XCTAssertNil(bare.value("low-data"))
        XCTAssertEqual(bare.positionals, ["u"], "a separate argument is never taken as the value")
        let attached = try Fixtures.command(["get", "--low-data=auto", "u"])
        XCTAssertTrue(attached.flag("low-data"))
        XCTAssertEqual(attached.value("low-data"), "auto")
        XCTAssertTrue(try Fixtures.command(["get", "-l", "u"]).flag("low-data"))
    }

    func testGlobalOptionsBeforeAndAfterSubcommand() throws {
        let before = try Fixtures.command(["-v", "cache", "ls"])
        XCTAssertTrue(before.flag("verbose"))
        XCTAssertEqual(before.path, ["cache", "ls"])
        XCTAssertTrue(try Fixtures.command(["cache", "ls", "--quiet"]).flag("quiet"))
    }

    func testNonGlobalParentOptionRejectedInSubcommand() {
        XCTAssertEqual(Fixtures.errorMessage(["--config", "x", "get", "u"]), "option '--config' does not apply to 'get'")
        XCTAssertEqual(Fixtures.errorMessage(["cache", "-n", "ls"]), "option '-n' does not apply to 'ls'")
    }

    func testNegativeNumbersAreValuesAndPositionals() throws {
        XCTAssertEqual(try Fixtures.command(["get", "--quality", "-5", "u"]).value("quality"), "-5")
        XCTAssertEqual(try Fixtures.command(["get", "-1.5"]).positionals, ["-1.5"])
    }

    func testPositionalArityDistribution() throws {
        let command = try Fixtures.command(["copy", "a", "b", "c"])
        XCTAssertEqual(command.positionalValues("SRC"), ["a", "b"])
        XCTAssertEqual(command.positional("DEST"), "c")
        XCTAssertEqual(Fixtures.errorMessage(["copy", "a"]), "missing DEST")
        XCTAssertEqual(Fixtures.errorMessage(["copy"]), "missing SRC")
        let ls = try Fixtures.command(["cache", "ls", "x", "y"])
        XCTAssertEqual(ls.positionalValues("PATTERN"), ["x", "y"])
    }

    func testOptionalPositional() throws {
        let spec = CommandSpec(name: "t", positionals: [
            PositionalSpec(name: "A", help: "", arity: .one),
            PositionalSpec(name: "B", help: "", arity: .optional),
        ])
        guard case .command(let one) = try spec.parse(["x"]) else { return XCTFail() }
        XCTAssertNil(one.positional("B"))
        guard case .command(let two) = try spec.parse(["x", "y"]) else { return XCTFail() }
        XCTAssertEqual(two.positional("B"), "y")
        XCTAssertThrowsError(try spec.parse(["x", "y", "z"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "unexpected argument 'z'")
        }
    }

    func testSubcommandNameAfterDoubleDashIsPositional() {
        XCTAssertEqual(Fixtures.errorMessage(["--", "get"]), "unexpected argument 'get'")
    }

    func testParentWithOptionalSubcommand() throws {
        var root = Fixtures.root
        root.subcommandRequired = false
        guard case .command(let command) = try root.parse(["-v"]) else { return XCTFail() }
        XCTAssertEqual(command.path, [])
        XCTAssertTrue(command.flag("verbose"))
    }

    func testParsedCommandPublicInit() {
        let command = ParsedCommand(path: ["get"], flags: ["json": 1], values: ["size": ["1x1"]], positionals: ["u"])
        XCTAssertTrue(command.flag("json"))
        XCTAssertTrue(command.flag("size"))
        XCTAssertEqual(command.value("size"), "1x1")
    }
}
