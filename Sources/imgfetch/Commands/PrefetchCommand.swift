import ArgumentKit
import ImageFetch

/// `imgfetch prefetch [options] [LIST | -]`.
enum PrefetchCommand {
    static func run(_ parsed: ParsedCommand) async throws(UsageError) -> ExitCode {
        throw UsageError("prefetch: not built yet", commandPath: ["prefetch"])
    }
}
