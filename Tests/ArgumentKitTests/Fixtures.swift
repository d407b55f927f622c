import ArgumentKit
import XCTest

/// A spec tree shaped like imgfetch's, shared by the tests.
enum Fixtures {
    static let get = CommandSpec(
        name: "get",
        abstract: "Fetch one image and write it to stdout or a file.",
        usage: "imgfetch get [options] SOURCE",
        options: [
            OptionSpec(long: "size", short: "s", valueName: "WxH", help: "Resize to fit within WxH.",
                       kind: .value, defaultDescription: "original"),
            OptionSpec(long: "alt", short: "a", valueName: "URL", help: "Fallback source.", kind: .repeatedValue),
            .value("retry", valueName: "N", help: "Retries on failure.", defaultDescription: "2"),
            OptionSpec(long: "low-data", short: "l", valueName: "MODE", help: "Prefer small variants.",
                       kind: .flagOrValue),
            .flag("json", help: "Print metadata as JSON."),
            .flag("force", short: "f", help: "Ignore the cache."),
            .value("output", short: "o", valueName: "FILE", help: "Write to FILE instead of stdout."),
            .value("max-size", valueName: "BYTES", help: "Give up on larger images."),
            .value("max-age", valueName: "DURATION", help: "Cache freshness."),
            .value("shard", valueName: "K/N", help: "Only handle shard K of N."),
            .value("quality", valueName: "Q", help: "JPEG quality."),
            .flag("debug-trace", help: "Internal.", hidden: true),
        ],
        positionals: [PositionalSpec(name: "SOURCE", help: "URL or file path; - for stdin.")]
    )

    static let cacheLs = CommandSpec(
        name: "ls", abstract: "List cached images.",
        options: [.flag("json", help: "Machine-readable output.")],
        positionals: [PositionalSpec(name: "PATTERN", help: "Filter by URL substring.", arity: .zeroOrMore)]
    )

    static let cache = CommandSpec(
        name: "cache", abstract: "Inspect or clear the cache.",
        options: [.flag("dry-run", short: "n", help: "Do nothing.")],
        subcommands: [cacheLs, CommandSpec(name: "clear", abstract: "Remove every cached image.")]
    )

    static let copy = CommandSpec(
        name: "copy", abstract: "Copy images.",
        positionals: [
            PositionalSpec(name: "SRC", help: "Sources.", arity: .oneOrMore),
            PositionalSpec(name: "DEST", help: "Destination.", arity: .one),
        ]
    )

    static let root = CommandSpec(
        name: "imgfetch",
        abstract: "Fetch, resize and cache images.",
        options: [
            .flag("verbose", short: "v", help: "More logging.", global: true),
            .flag("quiet", short: "q", help: "Less logging.", global: true),
            .value("config", valueName: "FILE", help: "Config file."),
        ],
        subcommands: [get, cache, copy],
        discussion: "Examples:\n  imgfetch get https://example.com/a.png -s 320x240"
    )

    /// Parses and expects a `.command` outcome.
    static func command(
        _ arguments: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws -> ParsedCommand {
        let outcome = try root.parse(arguments)
        guard case .command(let command) = outcome else {
            XCTFail("expected a command, got \(outcome)", file: file, line: line)
            throw UsageError("not a command")
        }
        return command
    }

    /// Parses and returns the error message (fails if parsing succeeds).
    static func errorMessage(
        _ arguments: [String], file: StaticString = #filePath, line: UInt = #line
    ) -> String? {
        do {
            let outcome = try root.parse(arguments)
            XCTFail("expected an error, got \(outcome)", file: file, line: line)
            return nil
        } catch {
            return error.message
        }
    }
}
