/// An error in how the user invoked the program; the caller should print
/// `description` (plus perhaps a usage line) to stderr and exit with status 2.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Human-readable message naming the offending input,
    /// e.g. `unknown option '--sise' (did you mean '--size'?)`.
    public var message: String
    /// Subcommand path in effect when the error occurred, e.g. `["cache", "ls"]`.
    public var commandPath: [String]

    /// Creates an error. Value converters passed to `ParsedCommand.parse`
    /// throw this with just the reason, e.g. `UsageError("expected a byte size")`.
    public init(_ message: String, commandPath: [String] = []) {
        self.message = message
        self.commandPath = commandPath
    }

    /// The message itself.
    public var description: String { message }
}

extension UsageError {
    static func unknownOption(_ typed: String, suggestion: String?, path: [String]) -> UsageError {
        let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
        return UsageError("unknown option '\(typed)'\(hint)", commandPath: path)
    }

    static func unknownCommand(_ name: String, suggestion: String?, path: [String]) -> UsageError {
        let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
        return UsageError("unknown command '\(name)'\(hint)", commandPath: path)
    }

    static func needsValue(_ typed: String, path: [String]) -> UsageError {
        UsageError("option '\(typed)' needs a value", commandPath: path)
    }

    static func takesNoValue(_ typed: String, path: [String]) -> UsageError {
        UsageError("option '\(typed)' takes no value", commandPath: path)
    }

    static func invalidValue(_ value: String, option: String, reason: String, path: [String]) -> UsageError {
        UsageError("invalid value '\(value)' for '\(option)': \(reason)", commandPath: path)
    }
}
