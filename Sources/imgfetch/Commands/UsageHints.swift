import ArgumentKit
import ImageFetch

/// Usage errors reworded for what the user most likely meant.
enum UsageHints {
    /// `imgfetch http://...`: a source where a command was expected is not an unknown command
    /// but a missing `get`.
    static func reworded(_ error: UsageError, arguments: [String]) -> UsageError {
        guard error.commandPath.isEmpty else { return error }
        for argument in arguments where error.message.hasPrefix("unknown command '\(argument)'") && looksLikeSource(argument) {
            let shown = ListParser.quoted(argument, limit: 80, marks: false)
            return UsageError("unknown command '\(shown)': to fetch an image, use 'imgfetch get \(shown)'")
        }
        return error
    }

    static func looksLikeSource(_ text: String) -> Bool {
        let lower = String(text.prefix(8)).lowercased()
        return ["http://", "https://", "file://", "data:"].contains { lower.hasPrefix($0) }
    }
}
