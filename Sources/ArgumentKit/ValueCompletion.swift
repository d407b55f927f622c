/// What kind of value an option or a positional takes, for shell completion scripts and for
/// parser hints. Declared next to the option, so help, completions and the parser agree.
public enum ValueCompletion: Sendable, Equatable {
    /// Free text: nothing to complete (a URL, a number, a size).
    case none
    /// Exactly one of these words (`--fit inside|cover`).
    case choices([String])
    /// A file path (or any word: a source may be a URL as well).
    case file
    /// A directory path.
    case directory

    /// The words of `.choices`, else empty.
    public var words: [String] {
        if case .choices(let words) = self { return words }
        return []
    }
}
