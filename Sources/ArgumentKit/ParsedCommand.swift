/// The result of parsing: which command to run and its arguments.
///
/// Options are read by typed key (`parsed[Keys.size]`, see ``OptionKey``), or by long name
/// without dashes (`value("size")`) where names are data (a config file's lines, tests).
/// Asking for an option the command does not declare (including global
/// options of its ancestors) is a programming error and trips an
/// `assert` in debug builds.
public struct ParsedCommand: Sendable, Equatable {
    /// Subcommand names below the root, e.g. `["cache", "ls"]`; empty for the root.
    public let path: [String]
    /// All positional arguments, in order.
    public let positionals: [String]

    /// Occurrence count per option long name.
    let counts: [String: Int]
    /// Values per option long name, in command-line order.
    let optionValues: [String: [String]]
    /// Positional values grouped by `PositionalSpec.name`.
    let positionalsByName: [String: [String]]
    /// Long names valid for this command; nil disables the debug check.
    let knownOptions: Set<String>?
    /// Where each option's values were in the arguments, in the order of `values`.
    var locations: [String: [ValueLocation]] = [:]
    /// Told of every typed read (a test's `observingReads`); nil: nobody.
    var readObserver: (@Sendable (OptionSpec) -> Void)?

    /// Creates a parsed command directly, e.g. to unit-test command handlers.
    /// `flags` maps long names to how often they occurred.
    public init(
        path: [String],
        flags: [String: Int] = [:],
        values: [String: [String]] = [:],
        positionals: [String] = [],
        positionalsByName: [String: [String]] = [:]
    ) {
        var counts = flags
        for (name, list) in values where counts[name] == nil { counts[name] = list.count }
        self.init(
            path: path, counts: counts, optionValues: values, positionals: positionals,
            positionalsByName: positionalsByName, knownOptions: nil)
    }

    init(
        path: [String], counts: [String: Int], optionValues: [String: [String]],
        positionals: [String], positionalsByName: [String: [String]], knownOptions: Set<String>?
    ) {
        self.path = path
        self.counts = counts
        self.optionValues = optionValues
        self.positionals = positionals
        self.positionalsByName = positionalsByName
        self.knownOptions = knownOptions
    }

    /// Equal when they say the same: where the values were (`locations`) is not compared.
    public static func == (a: ParsedCommand, b: ParsedCommand) -> Bool {
        a.path == b.path && a.positionals == b.positionals && a.counts == b.counts && a.optionValues == b.optionValues
            && a.positionalsByName == b.positionalsByName && a.knownOptions == b.knownOptions
    }

    /// Whether the option occurred at all (for any kind of option).
    public func flag(_ long: String) -> Bool {
        count(long) > 0
    }

    /// How many times the option occurred (`-vvv` gives 3).
    public func count(_ long: String) -> Int {
        check(long)
        return counts[long] ?? 0
    }

    /// The option's value; for a non-repeatable option given several
    /// times, the **last** one (curl semantics). For `.flagOrValue`, the
    /// last attached value (`--low-data=auto`), nil for a bare `--low-data`.
    public func value(_ long: String) -> String? {
        values(long).last
    }

    /// Every value given for the option, in command-line order.
    public func values(_ long: String) -> [String] {
        check(long)
        return optionValues[long] ?? []
    }

    /// Where each value of the option was in the parsed arguments, in command-line order: for a
    /// caller that must overwrite a secret in the process's own argument vector. Empty for an
    /// option not given or not declared, and for a command made with `init`.
    public func valueLocations(_ long: String) -> [ValueLocation] {
        locations[long] ?? []
    }

    /// The value bound to the positional named `name` (first one if variadic).
    public func positional(_ name: String) -> String? {
        positionalsByName[name]?.first
    }

    /// All values bound to the positional named `name`.
    public func positionalValues(_ name: String) -> [String] {
        positionalsByName[name] ?? []
    }

    /// A `UsageError` carrying this command's path, for checks done by the caller
    /// (e.g. mutually exclusive options).
    public func error(_ message: String) -> UsageError {
        UsageError(message, commandPath: path)
    }

    private func check(_ long: String) {
        // An observed command (a test's) reports the read instead.
        assert(readObserver != nil || knownOptions?.contains(long) ?? true, "option '--\(long)' is not declared for \(path)")
    }
}

/// Where an option's value was: the index of the argument (in what `parse` was given, without the
/// program name) and the UTF-8 byte offset in it at which the value starts (0 for a value given
/// as its own argument; after `--name=` or `-n` when attached).
public struct ValueLocation: Sendable, Equatable {
    public var argument: Int
    public var offset: Int
    public init(argument: Int, offset: Int) {
        self.argument = argument
        self.offset = offset
    }
}
