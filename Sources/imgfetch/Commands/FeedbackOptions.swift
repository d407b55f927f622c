import ArgumentKit
import ImageFetch

/// The feedback options' values: `get`'s meter switch and `prefetch --save-failed FILE`.
enum FeedbackOptions {
    /// Whether `get` may show its download meter: stderr is a terminal, neither `--no-progress`
    /// nor `--quiet`.
    static func showsMeter(_ parsed: ParsedCommand, quiet: Bool) -> Bool {
        !parsed[OptionKeys.noProgress] && !quiet && Console.stderrIsTerminal
    }

    /// `--save-failed FILE`, checked before any work: a directory or a dangling link is a usage error.
    /// The same check for `--save-remaining FILE` (`key`).
    static func saveFailedPath(_ parsed: ParsedCommand, key: TextKey = OptionKeys.saveFailed) throws(UsageError) -> String? {
        guard let path = parsed[key] else { return nil }
        let option = key.long
        guard !path.isEmpty else { throw UsageError("--\(option) needs a file name", commandPath: ["prefetch"]) }
        do { _ = try FileSystem.outputKind(path) } catch {
            throw UsageError("invalid value '\(path)' for '--\(option)': \(error.message)", commandPath: ["prefetch"])
        }
        return path
    }
}
