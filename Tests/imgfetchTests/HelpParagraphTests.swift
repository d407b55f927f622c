import ArgumentKit
@testable import imgfetch
import XCTest

/// Every command's help at 80 columns reads as sentences: a paragraph flows to the width instead of
/// keeping its source's line breaks (which, past 80 columns, left a few words on a line of their own
/// in the middle of a sentence, as `help cache gallery` and `help cache sheet` did).
final class HelpParagraphTests: XCTestCase {
    /// Every command path below the root, the root's own `[]` first.
    private func paths(_ spec: CommandSpec, prefix: [String] = []) -> [[String]] {
        [prefix] + spec.subcommands.flatMap { paths($0, prefix: prefix + [$0.name]) }
    }

    /// The check: two consecutive lines of prose (both starting in column 0, not empty) where the first
    /// does not end a sentence or a clause (its last character is none of `.` `:` `;` `)`) and the
    /// second's first word would still have fit on the first (with its space, within 80 columns): the
    /// paragraph was broken in the middle of a sentence where it should have flowed.
    static func midSentenceBreaks(in help: String, width: Int = 80) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var found: [String] = []
        for (a, b) in zip(lines, lines.dropFirst()) {
            guard let first = a.first, first != " ", let next = b.first, next != " " else { continue }
            guard let last = a.last, !".:;)".contains(last) else { continue }
            let word = b.split(separator: " ").first.map(String.init) ?? ""
            if a.count + 1 + word.count <= width { found.append("'\(a)' / '\(b)'") }
        }
        return found
    }

    func testEveryHelpFlowsItsParagraphsAt80Columns() {
        for path in paths(Specs.root) {
            let help = HelpFormatter.help(for: Specs.root, path: path, width: 80)
            XCTAssertEqual(Self.midSentenceBreaks(in: help), [], "help \(path.joined(separator: " ")):\n\(help)")
            for line in help.split(separator: "\n") {
                XCTAssertLessThanOrEqual(line.count, 80, "help \(path.joined(separator: " ")): '\(line)'")
            }
        }
    }

    func testTheCheckFindsABrokenParagraph() {
        let broken = "Every variant is shown as a\npicture\nwith its source.\n\nExample:\n  imgfetch cache gallery\n"
        XCTAssertEqual(Self.midSentenceBreaks(in: broken).count, 2)
    }
}
