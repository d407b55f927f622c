import ArgumentKit
import ImageFetch

/// Usage errors reworded for what the user most likely meant.
enum UsageHints {
    /// `imgfetch http://...`: a source where a command was expected is not an unknown command
    /// but a missing `get`.
    static func reworded(_ error: UsageError, arguments: [String]) -> UsageError {
        if let hinted = foreignOption(error) { return hinted }
        guard error.commandPath.isEmpty else { return error }
        for argument in arguments where error.message.hasPrefix("unknown command '\(argument)'") && looksLikeSource(argument) {
            let shown = ListParser.quoted(argument, limit: 80, marks: false)
            return UsageError("unknown command '\(shown)': to fetch an image, use 'imgfetch get \(shown)'")
        }
        return error
    }

    /// curl's and wget's options a user types out of habit: what imgfetch does instead.
    static let foreignOptions: [String: String] = [
        "-L": "imgfetch follows redirects itself (at most 5)",
        "--location": "imgfetch follows redirects itself (at most 5)",
        "-O": "-o FILE names the output; --output-dir DIR (with --name) names files after their sources",
        "--remote-name": "--output-dir DIR (with --name) names files after their sources",
        "--output-document": "see -o FILE",
        "--wait": "see --rate PER_SECOND",
        "-nc": "see --no-clobber",
        "--continue": "partial downloads resume by themselves",
    ]

    /// An unknown option that is curl's or wget's (`-L`, `-O`, `--wait`, `-nc`, ...), and wget's
    /// `-c` given no value (imgfetch's `-c FILE` is curl's cookie jar): the hint instead of the
    /// "did you mean".
    static func foreignOption(_ error: UsageError) -> UsageError? {
        if error.message == "option '-c' needs a value" {
            return UsageError("option '-c' needs a value: -c FILE is the cookie jar, as curl's; wget's -c is not needed: partial downloads resume by themselves",
                              commandPath: error.commandPath)
        }
        guard error.message.hasPrefix("unknown option '") else { return nil }
        let rest = error.message.dropFirst("unknown option '".count)
        let first = rest.prefix { $0 != "'" }
        // "unknown option '-n' in '-nc'": the whole argument is what was typed.
        let after = rest.dropFirst(first.count)
        let typed = after.hasPrefix("' in '") ? String(after.dropFirst(6).prefix { $0 != "'" }) : String(first)
        let name = String(typed.prefix { $0 != "=" })
        guard let hint = foreignOptions[name] else { return nil }
        return UsageError("unknown option '\(name)': \(hint)", commandPath: error.commandPath)
    }

    static func looksLikeSource(_ text: String) -> Bool {
        let lower = String(text.prefix(8)).lowercased()
        return ["http://", "https://", "file://", "data:"].contains { lower.hasPrefix($0) }
    }
}
