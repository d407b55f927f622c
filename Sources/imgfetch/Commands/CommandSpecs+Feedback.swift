import ArgumentKit

extension Specs {
    /// What `get` shows while it works (see GetFeedback.swift and man imgfetch, PROGRESS).
    static let getFeedback: [OptionSpec] = [
        .flag("no-progress", help: "Never show the download meter (on a terminal, a line of bytes, total, rate and time left after half a second of downloading)."),
    ]

    /// `prefetch`'s file of failed lines.
    static let saveFailed = OptionSpec.value("save-failed", valueName: "FILE", help: "At the end (also after Ctrl-C or SIGTERM), write the lines that failed, as written, one per line, atomically: imgfetch prefetch FILE runs only them. Malformed lines are not in it.", completion: .file)
}
