import ArgumentKit
import XCTest

final class HelpFormatterTests: XCTestCase {
    func testGetHelpLayout() {
        let help = HelpFormatter.help(for: Fixtures.root, path: ["get"])
        XCTAssertTrue(help.hasPrefix("Usage: imgfetch get [options] SOURCE\n\nFetch one image"), help)
        XCTAssertTrue(help.contains("\nArguments:\n  SOURCE "), help)
        XCTAssertTrue(help.contains("  -s, --size WxH "), help)
        XCTAssertTrue(help.contains("Resize to fit within WxH. (default: original)"), help)
        XCTAssertTrue(help.contains("      --json "), help)
        XCTAssertTrue(help.contains("  -l, --low-data[=MODE] "), help)
        XCTAssertTrue(help.contains("Fallback source. (repeatable)"), help)
        XCTAssertTrue(help.contains("  -h, --help "), help)
        XCTAssertFalse(help.contains("--version"), "version is root-only")
        XCTAssertFalse(help.contains("debug-trace"), "hidden options stay hidden")
        XCTAssertTrue(help.contains("\nGlobal options:\n  -v, --verbose "), help)
    }

    func testTwoColumnAlignment() {
        let help = HelpFormatter.help(for: Fixtures.root, path: ["get"])
        let rows = help.split(separator: "\n").filter { $0.hasPrefix("  ") }
        let texts = ["URL or file path", "Resize to fit", "Print metadata", "Show this help.", "More logging."]
        let columns = texts.compactMap { text -> Int? in
            guard let row = rows.first(where: { $0.contains(text) }), let range = row.range(of: text) else { return nil }
            return row.distance(from: row.startIndex, to: range.lowerBound)
        }
        XCTAssertEqual(columns.count, texts.count, help)
        XCTAssertEqual(Set(columns).count, 1, "help texts start in one column: \(columns)\n\(help)")
        // Two spaces of indent, the widest label, then at least two spaces of gap.
        XCTAssertGreaterThanOrEqual(columns[0], 2 + "-l, --low-data[=MODE]".count + 2)
    }

    func testWrapsTo80Columns() {
        let long = String(repeating: "lorem ipsum dolor ", count: 12)
        let spec = CommandSpec(
            name: "t", abstract: long,
            options: [.value("size", short: "s", valueName: "WxH", help: long, defaultDescription: "none")],
            discussion: long)
        let help = HelpFormatter.help(for: spec)
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(lines.allSatisfy { $0.count <= 80 }, help)
        let optionLines = lines.drop { !$0.hasPrefix("Options:") }.dropFirst().prefix { !$0.isEmpty }
        XCTAssertGreaterThan(optionLines.count, 2)
        let column = optionLines.first!.range(of: "lorem")!.lowerBound.utf16Offset(in: optionLines.first!)
        for continuation in optionLines.dropFirst() where !continuation.contains("--") {
            XCTAssertEqual(continuation.prefix { $0 == " " }.count, column, "continuations align under the text")
        }
        XCTAssertTrue(help.contains("(default: none)"))
    }

    func testLongLabelMovesTextToNextLine() {
        let spec = CommandSpec(name: "t", options: [
            .value("an-extremely-long-option-name", valueName: "SOMETHING", help: "Text."),
            .flag("x", help: "Short."),
        ])
        let lines = HelpFormatter.help(for: spec).split(separator: "\n")
        let index = lines.firstIndex { $0.contains("--an-extremely-long-option-name SOMETHING") }!
        XCTAssertEqual(lines[index].trimmingSuffixSpaces, "      --an-extremely-long-option-name SOMETHING")
        XCTAssertEqual(lines[index + 1].trimmingPrefixSpaces, "Text.")
    }

    func testRootHelpListsCommandsVersionAndDiscussion() {
        let help = HelpFormatter.help(for: Fixtures.root)
        XCTAssertTrue(help.hasPrefix("Usage: imgfetch [options] COMMAND\n"), help)
        XCTAssertTrue(help.contains("\nCommands:\n  get "), help)
        XCTAssertTrue(help.contains("  cache "), help)
        XCTAssertTrue(help.contains("Inspect or clear the cache."), help)
        XCTAssertTrue(help.contains("      --version "), help)
        XCTAssertTrue(help.contains("\nExamples:\n  imgfetch get https://example.com/a.png -s 320x240\n"), help)
        XCTAssertTrue(help.contains("Run 'imgfetch COMMAND --help'"), help)
        XCTAssertFalse(help.contains("Global options:"), "the root lists its globals as its own options")
    }

    func testGeneratedUsageForNestedCommand() {
        XCTAssertEqual(HelpFormatter.usage(for: Fixtures.root, path: ["cache", "ls"]), "imgfetch cache ls [options] [PATTERN...]")
        XCTAssertEqual(HelpFormatter.usage(for: Fixtures.root, path: ["copy"]), "imgfetch copy [options] SRC... DEST")
        XCTAssertEqual(HelpFormatter.usage(for: Fixtures.root, path: ["cache"]), "imgfetch cache [options] COMMAND")
        let help = HelpFormatter.help(for: Fixtures.root, path: ["cache", "ls"])
        XCTAssertTrue(help.contains("  PATTERN "), help)
        XCTAssertTrue(help.contains("      --json "), help)
    }

    func testHelpForOutcomePath() throws {
        guard case .help(let path) = try Fixtures.root.parse(["cache", "ls", "--help"]) else { return XCTFail() }
        XCTAssertEqual(HelpFormatter.help(for: Fixtures.root, path: path), HelpFormatter.help(for: Fixtures.root, path: ["cache", "ls"]))
    }

    func testTheManSynopsisShowsARequiredOptionWithoutBrackets() {
        let sheet = CommandSpec(name: "sheet", abstract: "A sheet.", options: [
            .value("output", short: "o", valueName: "FILE", help: "The sheet.", required: true),
            .value("size", valueName: "S", help: "Each picture's box."),
        ])
        let synopsis = ManSynopsis.mdoc(for: CommandSpec(name: "imgfetch", abstract: "", subcommands: [sheet]))
        XCTAssertTrue(synopsis.contains(".Cm sheet\n.Fl o Ar FILE\n.Op Fl -size Ar S\n"), synopsis)
    }

    func testNoTrailingWhitespace() {
        for path in [[], ["get"], ["cache"], ["cache", "ls"], ["copy"]] {
            let help = HelpFormatter.help(for: Fixtures.root, path: path)
            for line in help.split(separator: "\n") {
                XCTAssertFalse(line.hasSuffix(" "), "trailing space in '\(line)'")
            }
        }
    }
}

extension Substring {
    fileprivate var trimmingSuffixSpaces: Substring {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }

    fileprivate var trimmingPrefixSpaces: Substring { drop { $0 == " " } }
}
