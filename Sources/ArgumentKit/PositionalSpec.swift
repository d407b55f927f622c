/// Describes a positional argument, such as `SOURCE` in `imgfetch get SOURCE`.
public struct PositionalSpec: Sendable, Equatable {
    /// How many values a positional accepts.
    public enum Arity: Sendable, Equatable {
        /// Exactly one value (`SOURCE`).
        case one
        /// Zero or one value (`[DEST]`).
        case optional
        /// Any number of values (`[FILE...]`).
        case zeroOrMore
        /// At least one value (`FILE...`).
        case oneOrMore

        /// Fewest values this arity accepts.
        var minimum: Int { (self == .one || self == .oneOrMore) ? 1 : 0 }
        /// Whether this arity can take more than one value.
        var isVariadic: Bool { self == .zeroOrMore || self == .oneOrMore }
    }

    /// Display name, e.g. `"SOURCE"`; also the key for `ParsedCommand.positional(_:)`.
    public var name: String
    /// Help text.
    public var help: String
    /// How many values this positional takes.
    public var arity: Arity
    /// What the value is, for completion scripts (default `.none`).
    public var completion: ValueCompletion

    /// Creates a positional argument specification.
    public init(name: String, help: String, arity: Arity = .one, completion: ValueCompletion = .none) {
        self.name = name
        self.help = help
        self.arity = arity
        self.completion = completion
    }

    /// How the positional appears in a generated usage line.
    var usageToken: String {
        switch arity {
        case .one: return name
        case .optional: return "[\(name)]"
        case .zeroOrMore: return "[\(name)...]"
        case .oneOrMore: return "\(name)..."
        }
    }
}
