/// Describes one named option of a command, such as `-s, --size WxH`.
///
/// Options are identified by their long name (without the leading `--`);
/// that name is the key used by ``ParsedCommand`` accessors.
public struct OptionSpec: Sendable, Equatable {
    /// How an option consumes command-line input.
    public enum Kind: Sendable, Equatable {
        /// A boolean switch: `--json`, `-q`. Rejects `--json=value`.
        case flag
        /// Takes exactly one value: `--size 320x240`, `--size=320x240`,
        /// `-s 320`, `-s320`. If given more than once, the **last occurrence wins**
        /// (like curl); every occurrence is still available via `values(_:)`.
        case value
        /// Takes one value per occurrence, collected in order:
        /// `--alt A --alt B` gives `["A", "B"]`.
        case repeatedValue
        /// A flag that may carry a value, but **only** in attached form:
        /// `--low-data` or `--low-data=auto`. `--low-data auto` leaves `auto`
        /// as a positional; the short form (`-l`) is always a plain flag.
        case flagOrValue

        /// Whether the option consumes a separate value argument.
        var consumesValue: Bool { self == .value || self == .repeatedValue }
    }

    /// Long name without dashes, e.g. `"size"` for `--size`.
    public var long: String
    /// Optional single-character short name, e.g. `"s"` for `-s`.
    public var short: Character?
    /// Placeholder shown in help, e.g. `"WxH"`.
    public var valueName: String
    /// One-line (wrappable) help text.
    public var help: String
    /// How the option consumes input.
    public var kind: Kind
    /// Shown in help as `(default: …)` when non-nil.
    public var defaultDescription: String?
    /// Hidden options parse normally but are left out of help.
    public var hidden: Bool
    /// A global option is also accepted by every subcommand of the command
    /// that declares it (e.g. `--verbose` on the root), before or after
    /// the subcommand name.
    public var global: Bool
    /// What the value is, for completion scripts (default `.none`). For a ``Kind/flagOrValue``
    /// option, `.choices` also lets the parser explain `--low-data auto` (the value needs `=`).
    public var completion: ValueCompletion
    /// Shown without brackets in the man page's SYNOPSIS (the command refuses to run without it).
    public var required = false

    /// Creates an option specification.
    public init(
        long: String,
        short: Character? = nil,
        valueName: String = "VALUE",
        help: String,
        kind: Kind = .flag,
        defaultDescription: String? = nil,
        hidden: Bool = false,
        global: Bool = false,
        completion: ValueCompletion = .none
    ) {
        self.long = long
        self.short = short
        self.valueName = valueName
        self.help = help
        self.kind = kind
        self.defaultDescription = defaultDescription
        self.hidden = hidden
        self.global = global
        self.completion = completion
    }

    /// Convenience for a ``Kind/flag`` option.
    public static func flag(
        _ long: String, short: Character? = nil, help: String,
        hidden: Bool = false, global: Bool = false
    ) -> OptionSpec {
        OptionSpec(long: long, short: short, help: help, kind: .flag, hidden: hidden, global: global)
    }

    /// Convenience for a ``Kind/value`` option.
    public static func value(
        _ long: String, short: Character? = nil, valueName: String = "VALUE", help: String,
        defaultDescription: String? = nil, hidden: Bool = false, global: Bool = false,
        completion: ValueCompletion = .none, required: Bool = false
    ) -> OptionSpec {
        var option = OptionSpec(
            long: long, short: short, valueName: valueName, help: help, kind: .value,
            defaultDescription: defaultDescription, hidden: hidden, global: global, completion: completion)
        option.required = required
        return option
    }

    /// Whether the option takes a value (separate or attached).
    public var takesValue: Bool { kind != .flag }

    /// The left-hand column of this option in help, e.g. `-s, --size WxH`.
    var helpLabel: String {
        let prefix = short.map { "-\($0), " } ?? "    "
        switch kind {
        case .flag: return "\(prefix)--\(long)"
        case .value, .repeatedValue: return "\(prefix)--\(long) \(valueName)"
        case .flagOrValue: return "\(prefix)--\(long)[=\(valueName)]"
        }
    }
}
