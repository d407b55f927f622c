/// An option declared once: its spec (name, help, value name, default text) and how its value is
/// read, typed. A command's spec is built from its keys (`key.spec`) and its code reads them
/// (`parsed[key]`), so a misspelt or mistyped option is a compile error, and a malformed value is
/// reported in one place (`invalid value 'abc' for '--jobs': expected an integer in 1...256`).
///
/// `Failure` is `Never` for what cannot be malformed (a flag, a text, a list): reading it needs no
/// `try`. Keys are built with the factories below, e.g.
///
///     enum Keys { static let jobs: ValueKey<Int> = .int("jobs", short: "j", valueName: "N", help: "...", range: 1...256) }
///     CommandSpec(name: "prefetch", options: OptionSpec.list(Keys.jobs))
///     let jobs = try parsed[Keys.jobs] ?? 8
public struct OptionKey<Value: Sendable, Failure: Error>: OptionDeclaration {
    /// What the command declares: help, completions and the man synopsis follow it.
    public let spec: OptionSpec
    /// Reads the value of the option named by its second argument (the long name: so a flag's,
    /// a text's and a list's reader captures nothing, and making the key allocates nothing more).
    let read: @Sendable (ParsedCommand, String) throws(Failure) -> Value

    /// A key of `spec` read by `read`, given the command and the long name (for a reading the
    /// factories do not cover).
    public init(_ spec: OptionSpec, read: @escaping @Sendable (ParsedCommand, String) throws(Failure) -> Value) {
        self.spec = spec
        self.read = read
    }

    /// The long name, without dashes.
    public var long: String { spec.long }

    /// The same key with another `(default: ...)` text, for a command whose default differs.
    public func defaulting(_ text: String?) -> OptionKey {
        var spec = spec
        spec.defaultDescription = text
        return OptionKey(spec, read: read)
    }

    /// The same key (read alike) with another help text, for a command that says it otherwise.
    public func helped(_ text: String, defaultDescription: String? = nil) -> OptionKey {
        var spec = spec
        spec.help = text
        if let defaultDescription { spec.defaultDescription = defaultDescription }
        return OptionKey(spec, read: read)
    }
}

/// Anything that declares an option: a spec's options are built from them.
public protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
}

extension OptionSpec {
    /// The specs of `keys`, in order: a command's options built from its keys. A parameter pack,
    /// not `any OptionDeclaration...`: no key is boxed in an existential (every process start
    /// builds the command tree).
    @inlinable
    public static func list<each Key: OptionDeclaration>(_ keys: repeat each Key) -> [OptionSpec] {
        var specs: [OptionSpec] = []
        for key in repeat each keys { specs.append(key.spec) }
        return specs
    }
}

/// A switch (`--json`): true when given.
public typealias FlagKey = OptionKey<Bool, Never>
/// A value as typed, nil when absent (`--user-agent TEXT`).
public typealias TextKey = OptionKey<String?, Never>
/// A repeatable value, every occurrence in order (`--header H`).
public typealias ListKey = OptionKey<[String], Never>
/// A value converted (and checked) as it is read, nil when absent (`--jobs N`).
public typealias ValueKey<T: Sendable> = OptionKey<T?, UsageError>

extension OptionKey where Value == Bool, Failure == Never {
    /// A switch: true when given (`--json`, `-v`).
    public static func flag(
        _ long: String, short: Character? = nil, help: String, hidden: Bool = false, global: Bool = false
    ) -> OptionKey {
        OptionKey(.flag(long, short: short, help: help, hidden: hidden, global: global)) { $0.flag($1) }
    }
}

extension OptionKey where Value == String?, Failure == Never {
    /// One value, as typed (the last one when given several times); nil when absent.
    public static func value(
        _ long: String, short: Character? = nil, valueName: String = "VALUE", help: String,
        defaultDescription: String? = nil, hidden: Bool = false, global: Bool = false,
        completion: ValueCompletion = .none, required: Bool = false
    ) -> OptionKey {
        let spec = OptionSpec.value(long, short: short, valueName: valueName, help: help, defaultDescription: defaultDescription,
                                    hidden: hidden, global: global, completion: completion, required: required)
        return OptionKey(spec) { $0.value($1) }
    }

    /// A flag that may carry a value after `=` (`--low-data`, `--low-data=auto`): read its value
    /// here, whether it was given with `parsed.given(key)`.
    public static func flagOrValue(
        _ long: String, valueName: String, help: String, completion: ValueCompletion = .none
    ) -> OptionKey {
        OptionKey(OptionSpec(long: long, valueName: valueName, help: help, kind: .flagOrValue, completion: completion)) { $0.value($1) }
    }
}

extension OptionKey where Value == [String], Failure == Never {
    /// A repeatable option: every value, in command-line order (`--alt A --alt B`).
    public static func repeated(
        _ long: String, short: Character? = nil, valueName: String = "VALUE", help: String,
        completion: ValueCompletion = .none
    ) -> OptionKey {
        let spec = OptionSpec(long: long, short: short, valueName: valueName, help: help, kind: .repeatedValue, completion: completion)
        return OptionKey(spec) { $0.values($1) }
    }
}

extension OptionKey where Failure == UsageError {
    /// One value converted by `parser` (a `ValueParsers` function, or one of the command's); nil
    /// when absent. A value `parser` rejects is `invalid value 'V' for '--LONG': REASON`.
    public static func value<T>(
        _ long: String, short: Character? = nil, valueName: String = "VALUE", help: String,
        defaultDescription: String? = nil, completion: ValueCompletion = .none,
        parser: @escaping @Sendable (String) throws(UsageError) -> T
    ) -> OptionKey where Value == T? {
        let spec = OptionSpec.value(long, short: short, valueName: valueName, help: help,
                                    defaultDescription: defaultDescription, completion: completion)
        return OptionKey(spec) { (parsed: ParsedCommand, long: String) throws(UsageError) -> T? in try parsed.parse(long, parser) }
    }

    /// An integer, in `range` when given.
    public static func int(
        _ long: String, short: Character? = nil, valueName: String = "VALUE", help: String,
        defaultDescription: String? = nil, range: ClosedRange<Int>? = nil
    ) -> OptionKey where Value == Int? {
        let spec = OptionSpec.value(long, short: short, valueName: valueName, help: help, defaultDescription: defaultDescription)
        return OptionKey(spec) { (parsed: ParsedCommand, long: String) throws(UsageError) -> Int? in try parsed.int(long, range: range) }
    }

    /// A finite number, in `range` when given.
    public static func double(
        _ long: String, short: Character? = nil, valueName: String = "VALUE", help: String,
        defaultDescription: String? = nil, range: ClosedRange<Double>? = nil
    ) -> OptionKey where Value == Double? {
        let spec = OptionSpec.value(long, short: short, valueName: valueName, help: help, defaultDescription: defaultDescription)
        return OptionKey(spec) { (parsed: ParsedCommand, long: String) throws(UsageError) -> Double? in try parsed.double(long, range: range) }
    }
}

extension ParsedCommand {
    /// The key's value, read as it declares (see ``OptionKey``): a flag, a text, a list.
    public subscript<Value>(key: OptionKey<Value, Never>) -> Value {
        readObserver?(key.spec)
        return key.read(self, key.spec.long)
    }

    /// The key's value converted as it declares; a malformed one is a usage error. (Two subscripts,
    /// not one generic over the failure: Swift 6.3's SILGen crashes on a generic typed-throws
    /// accessor read inside a `do`/`catch`.)
    public subscript<Value>(key: OptionKey<Value, UsageError>) -> Value {
        get throws(UsageError) {
            readObserver?(key.spec)
            return try key.read(self, key.spec.long)
        }
    }

    /// Whether the key's option was given at all (any kind: a `--low-data` without a value too).
    public func given<Value, Failure>(_ key: OptionKey<Value, Failure>) -> Bool {
        readObserver?(key.spec)
        return flag(key.long)
    }

    /// The text key's value converted by `convert`, which needs what only the caller has (the
    /// environment): as ``parse(_:_:)``.
    public func parse<T, E: Error>(_ key: TextKey, _ convert: (String) throws(E) -> T) throws(UsageError) -> T? {
        readObserver?(key.spec)
        return try parse(key.long, convert)
    }

    /// Where each value of the key's option was in the arguments (see ``valueLocations(_:)``).
    public func valueLocations<Value, Failure>(_ key: OptionKey<Value, Failure>) -> [ValueLocation] {
        readObserver?(key.spec)
        return valueLocations(key.long)
    }
}
