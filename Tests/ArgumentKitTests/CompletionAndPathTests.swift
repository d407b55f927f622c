import ArgumentKit
import XCTest

/// `commandPath` (for `help NAME...`), the `--low-data auto` hint, and the completion scripts'
/// content (the shells themselves run them in the end-to-end tests).
final class CompletionAndPathTests: XCTestCase {
    func testCommandPathChecksEveryName() throws {
        XCTAssertEqual(try Fixtures.root.commandPath(["cache", "ls"]), ["cache", "ls"])
        XCTAssertEqual(try Fixtures.root.commandPath([]), [])
        XCTAssertThrowsError(try Fixtures.root.commandPath(["nothing"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "unknown command 'nothing'")
        }
        XCTAssertThrowsError(try Fixtures.root.commandPath(["cache", "lss"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "unknown command 'lss' (did you mean 'ls'?)")
            XCTAssertEqual((error as? UsageError)?.commandPath, ["cache"])
        }
    }

    static let lowData = CommandSpec(name: "tool", options: [
        OptionSpec(long: "low-data", valueName: "MODE", help: "Low data.", kind: .flagOrValue, completion: .choices(["auto", "1", "0"])),
        .value("fit", valueName: "MODE", help: "Fit.", completion: .choices(["inside", "cover"])),
        .value("output", short: "o", valueName: "FILE", help: "Out.", completion: .file),
    ], positionals: [PositionalSpec(name: "SOURCE", help: "A source.", arity: .zeroOrMore, completion: .file)])

    func testAFlagOrValueFollowedByOneOfItsValuesSaysTheValueNeedsEquals() throws {
        XCTAssertThrowsError(try Self.lowData.parse(["--low-data", "auto"])) { error in
            XCTAssertEqual((error as? UsageError)?.message, "option '--low-data' takes its value after '=': --low-data=auto, not --low-data auto")
        }
        guard case .command(let parsed) = try Self.lowData.parse(["--low-data", "photo.jpg"]) else { return XCTFail() }
        XCTAssertTrue(parsed.flag("low-data"))
        XCTAssertEqual(parsed.positionalValues("SOURCE"), ["photo.jpg"])
        guard case .command(let attached) = try Self.lowData.parse(["--low-data=auto"]) else { return XCTFail() }
        XCTAssertEqual(attached.value("low-data"), "auto")
    }

    func testScriptsOfferEveryCommandOptionAndValue() {
        let bash = CompletionScript.script(for: Fixtures.root, shell: .bash)
        XCTAssertTrue(bash.contains("complete -F _imgfetch imgfetch"))
        XCTAssertTrue(bash.contains("'') echo 'get cache copy';;"), bash)
        XCTAssertTrue(bash.contains("'cache') echo 'ls clear';;"), bash)
        // Global options of the root are offered in every subcommand; hidden ones nowhere.
        XCTAssertTrue(bash.contains("'cache ls') echo '--json --verbose -v --quiet -q --help -h';;"), bash)
        XCTAssertFalse(bash.contains("debug-trace"))

        let tool = CompletionScript.script(for: Self.lowData, shell: .bash)
        XCTAssertTrue(tool.contains("'|--fit') echo 'choices:inside cover';;"), tool)
        XCTAssertTrue(tool.contains("'|--output'|'|-o') echo 'file';;"), tool)
        XCTAssertTrue(tool.contains("'') echo 'file';;"), "positional files: \(tool)")

        let zsh = CompletionScript.script(for: Self.lowData, shell: .zsh)
        XCTAssertTrue(zsh.hasPrefix("#compdef tool\n"))
        XCTAssertTrue(zsh.contains("'--fit=[Fit]:MODE:(inside cover)'"), zsh)
        XCTAssertTrue(zsh.contains("'--low-data=-[Low data]::MODE:(auto 1 0)'"), zsh)
        XCTAssertTrue(zsh.contains("'(-o --output)'{-o+,--output=}'[Out]:FILE:_files'"), zsh)

        let fish = CompletionScript.script(for: Self.lowData, shell: .fish)
        XCTAssertTrue(fish.contains("-l fit -x -a 'inside cover'"), fish)
        XCTAssertTrue(fish.contains("-l output -s o -r -F"), fish)
    }

    func testQuotingSurvivesQuotesInHelp() {
        let spec = CommandSpec(name: "t", options: [.flag("x", help: #"It's [odd]: a \ b."#)])
        let fish = CompletionScript.script(for: spec, shell: .fish)
        XCTAssertTrue(fish.contains(#"-d 'It\'s [odd]: a \\ b'"#), fish)
        let zsh = CompletionScript.script(for: spec, shell: .zsh)
        XCTAssertTrue(zsh.contains(#"'--x[It'\''s \[odd\]\: a \\ b]'"#), zsh)
    }
}
