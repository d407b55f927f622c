/// Command-line parsing against a `CommandSpec` tree.
///
/// Rules (a small, predictable subset of POSIX/GNU conventions):
/// - Arguments exclude the program name (pass `CommandLine.arguments.dropFirst()`).
/// - The first non-option argument selects a subcommand while the current
///   command has subcommands and no positionals have been seen yet.
/// - `--name value`, `--name=value`, `-n value`, `-nvalue`, `-n=value`;
///   clustered shorts `-qv`; in a cluster, a value-taking short consumes
///   the rest of the cluster (`-qs320`).
/// - A separate value argument may not start with `-` (so `--size --json`
///   reports a missing value), except `-` itself and negative numbers;
///   use `--name=-x` for such values.
/// - Options and positionals may be interleaved (`get URL -s 100`).
/// - `--` ends options; a lone `-` is a positional (stdin).
/// - A non-repeatable option given twice: the last value wins (like curl).
/// - Options of the current command and `global` options of its ancestors
///   are accepted; `--help`/`-h` anywhere before `--` gives `.help`
///   (unless the command claims `-h` itself); `--version` only at the root.
extension CommandSpec {
    /// Parses `arguments` (without the program name) against this root spec.
    public func parse<Arguments: Collection<String>>(_ arguments: Arguments) throws(UsageError) -> ParseOutcome {
        var scanner = ArgumentScanner(root: self, arguments: Array(arguments))
        return try scanner.run()
    }
}

/// One-shot parsing state machine used by `CommandSpec.parse`.
struct ArgumentScanner {
    let arguments: [String]
    var index = 0
    var optionsEnded = false
    /// Root first, current command last.
    private(set) var chain: [CommandSpec] { didSet { scope = Self.scope(of: chain) } }
    /// Options in scope: the current command's, then ancestors' global ones (computed when the chain
    /// changes, not at each option's lookup).
    private(set) var scope: [OptionSpec]
    var path: [String] = []
    var counts: [String: Int] = [:]
    var values: [String: [String]] = [:]
    /// Where each value was found, in the order of `values`.
    var locations: [String: [ValueLocation]] = [:]
    /// Where the value being recorded starts (set just before `record`).
    var pendingLocation: ValueLocation?
    /// How each recorded option was first typed, for error messages.
    var typedNames: [String: String] = [:]
    var positionals: [String] = []
    var helpRequested = false
    var versionRequested = false

    init(root: CommandSpec, arguments: [String]) {
        self.arguments = arguments
        self.chain = [root]
        self.scope = Self.scope(of: [root])
    }

    var current: CommandSpec { chain[chain.count - 1] }

    static func scope(of chain: [CommandSpec]) -> [OptionSpec] {
        var result = chain[chain.count - 1].options
        for ancestor in chain.dropLast().reversed() {
            result += ancestor.options.filter { $0.global && !result.map(\.long).contains($0.long) }
        }
        return result
    }

    mutating func run() throws(UsageError) -> ParseOutcome {
        do throws(UsageError) {
            while index < arguments.count {
                let argument = arguments[index]
                index += 1
                if optionsEnded || argument == "-" || !argument.hasPrefix("-") || looksLikeNumber(argument) {
                    try positional(argument)
                } else if argument == "--" {
                    optionsEnded = true
                } else if argument.hasPrefix("--") {
                    try longOption(argument)
                } else {
                    try shortCluster(argument)
                }
            }
            if helpRequested { return .help(path: path) }
            if versionRequested { return .version }
            return .command(try finish())
        } catch {
            if helpRequested || remainingArgumentsRequestHelp() { return .help(path: path) }
            if versionRequested { return .version }
            throw error
        }
    }

    // MARK: Positionals and subcommands

    mutating func positional(_ argument: String) throws(UsageError) {
        guard !optionsEnded, positionals.isEmpty, !current.subcommands.isEmpty else {
            positionals.append(argument)
            return
        }
        if let sub = current.subcommand(named: argument) {
            try descend(into: sub)
        } else if current.positionals.isEmpty {
            let suggestion = Suggestions.closest(to: argument, among: current.subcommands.map(\.name))
            throw .unknownCommand(argument, suggestion: suggestion, path: path)
        } else {
            positionals.append(argument)
        }
    }

    /// Enters a subcommand, rejecting non-global options already given to the parent.
    mutating func descend(into sub: CommandSpec) throws(UsageError) {
        chain.append(sub)
        path.append(sub.name)
        let allowed = Set(scope.map(\.long))
        for long in counts.keys.sorted() where !allowed.contains(long) {
            let typed = typedNames[long] ?? "--\(long)"
            throw UsageError("option '\(typed)' does not apply to '\(sub.name)'", commandPath: path)
        }
    }

    /// Binds positionals and builds the result.
    func finish() throws(UsageError) -> ParsedCommand {
        if current.subcommandRequired, !current.subcommands.isEmpty, current.positionals.isEmpty, positionals.isEmpty {
            let names = current.subcommands.map(\.name).joined(separator: ", ")
            throw UsageError("missing command (expected one of: \(names))", commandPath: path)
        }
        let bound = try PositionalBinder.bind(positionals, to: current.positionals, path: path)
        var parsed = ParsedCommand(
            path: path, counts: counts, optionValues: values, positionals: positionals,
            positionalsByName: bound, knownOptions: Set(scope.map(\.long)))
        parsed.locations = locations
        return parsed
    }

    // MARK: Options

    mutating func longOption(_ argument: String) throws(UsageError) {
        let body = argument.dropFirst(2)
        let name: String, attached: String?
        if let equals = body.firstIndex(of: "=") {
            name = String(body[..<equals])
            attached = String(body[body.index(after: equals)...])
        } else {
            name = String(body)
            attached = nil
        }
        let typed = "--\(name)"
        guard let option = scope.first(where: { $0.long == name }) else {
            if name == "help" || (name == "version" && chain.count == 1) {
                guard attached == nil else { throw .takesNoValue(typed, path: path) }
                if name == "help" { helpRequested = true } else { versionRequested = true }
                return
            }
            var candidates = scope.filter { !$0.hidden }.map(\.long) + ["help"]
            if chain.count == 1 { candidates.append("version") }
            let suggestion = Suggestions.closest(to: name, among: candidates).map { "--\($0)" }
            throw .unknownOption(typed, suggestion: suggestion, path: path)
        }
        switch option.kind {
        case .flag:
            guard attached == nil else { throw .takesNoValue(typed, path: path) }
            record(option, typed: typed, value: nil)
        case .flagOrValue:
            if attached == nil, index < arguments.count, option.completion.words.contains(arguments[index]) {
                let value = arguments[index]
                throw UsageError("option '\(typed)' takes its value after '=': \(typed)=\(value), not \(typed) \(value)", commandPath: path)
            }
            record(option, typed: typed, value: attached)
        case .value, .repeatedValue:
            let value: String
            if let attached {
                value = attached
                pendingLocation = ValueLocation(argument: index - 1, offset: 2 + name.utf8.count + 1)
            } else {
                value = try nextValue(for: typed)
            }
            record(option, typed: typed, value: value)
        }
    }

    mutating func shortCluster(_ argument: String) throws(UsageError) {
        let characters = Array(argument.dropFirst())
        var position = 0
        while position < characters.count {
            let letter = characters[position]
            position += 1
            let typed = "-\(letter)"
            guard let option = scope.first(where: { $0.short == letter }) else {
                if letter == "h" {
                    helpRequested = true
                    continue
                }
                let context = characters.count > 1 ? " in '\(argument)'" : ""
                throw UsageError("unknown option '\(typed)'\(context)", commandPath: path)
            }
            guard option.kind.consumesValue else {
                record(option, typed: typed, value: nil)
                continue
            }
            var rest = String(characters[position...])
            var offset = 1 + String(characters[..<position]).utf8.count
            if rest.hasPrefix("=") {
                rest.removeFirst()
                offset += 1
            }
            pendingLocation = ValueLocation(argument: index - 1, offset: offset)
            if rest.isEmpty && position == characters.count {
                rest = try nextValue(for: typed)
            }
            record(option, typed: typed, value: rest)
            return
        }
    }

    /// Consumes the next argument as an option value if it can be one.
    mutating func nextValue(for typed: String) throws(UsageError) -> String {
        guard index < arguments.count else { throw .needsValue(typed, path: path) }
        let candidate = arguments[index]
        guard candidate == "-" || !candidate.hasPrefix("-") || looksLikeNumber(candidate) else {
            throw .needsValue(typed, path: path)
        }
        index += 1
        pendingLocation = ValueLocation(argument: index - 1, offset: 0)
        return candidate
    }

    mutating func record(_ option: OptionSpec, typed: String, value: String?) {
        counts[option.long, default: 0] += 1
        if typedNames[option.long] == nil { typedNames[option.long] = typed }
        if let value {
            values[option.long, default: []].append(value)
            if let pendingLocation { locations[option.long, default: []].append(pendingLocation) }
        }
        pendingLocation = nil
    }

    // MARK: Helpers

    /// `-5`, `-0.5`, `-.5`: a number, unless some option in scope uses a digit short name.
    func looksLikeNumber(_ argument: String) -> Bool {
        let characters = Array(argument)
        guard characters.count >= 2, characters[0] == "-" else { return false }
        let first = characters[1] == "." && characters.count > 2 ? characters[2] : characters[1]
        guard first.isASCII, first.isNumber else { return false }
        return !scope.contains { $0.short?.isNumber ?? false }
    }

    /// Whether an unparsed argument (before `--`) asks for help.
    func remainingArgumentsRequestHelp() -> Bool {
        guard !optionsEnded, index < arguments.count else { return false }
        let claimsH = scope.contains { $0.short == "h" }
        for argument in arguments[index...] {
            if argument == "--" { return false }
            if argument == "--help" || (argument == "-h" && !claimsH) { return true }
        }
        return false
    }
}
