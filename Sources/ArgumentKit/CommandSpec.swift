/// Declarative description of a command: its options, positionals and subcommands.
///
/// The root spec describes the program itself (its `name` is the program
/// name, e.g. `"imgfetch"`); subcommands nest arbitrarily (`imgfetch cache ls`).
public struct CommandSpec: Sendable, Equatable {
    /// Command name as typed (for the root: the program name).
    public var name: String
    /// One-line summary, shown in help and in the parent's subcommand list.
    public var abstract: String
    /// Usage line without the `Usage: ` prefix; generated when nil.
    public var usage: String?
    /// Named options.
    public var options: [OptionSpec]
    /// Positional arguments, in order. At most one variadic, normally last.
    public var positionals: [PositionalSpec]
    /// Subcommands. A non-positional argument that is not an option selects one.
    public var subcommands: [CommandSpec]
    /// Free text shown at the end of help. Line breaks and leading indentation
    /// are kept (so examples survive); long lines are wrapped.
    public var discussion: String?
    /// When true (the default) and the command has subcommands but no
    /// positionals, invoking it without a subcommand is a usage error.
    /// Set to false for a parent that also does something on its own.
    public var subcommandRequired: Bool

    /// Creates a command specification.
    public init(
        name: String,
        abstract: String = "",
        usage: String? = nil,
        options: [OptionSpec] = [],
        positionals: [PositionalSpec] = [],
        subcommands: [CommandSpec] = [],
        discussion: String? = nil,
        subcommandRequired: Bool = true
    ) {
        self.name = name
        self.abstract = abstract
        self.usage = usage
        self.options = options
        self.positionals = positionals
        self.subcommands = subcommands
        self.discussion = discussion
        self.subcommandRequired = subcommandRequired
    }

    /// The direct subcommand called `name`, if any.
    public func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }

    /// The chain of specs from this (root) spec down along `path`, root first.
    /// Stops at the first name that does not resolve.
    public func chain(for path: [String]) -> [CommandSpec] {
        var chain = [self]
        for name in path {
            guard let next = chain[chain.count - 1].subcommand(named: name) else { break }
            chain.append(next)
        }
        return chain
    }

    /// The command path `names` spells (as in `imgfetch help cache ls`), checked: a name that is
    /// not a command there is a usage error (with a suggestion), not help for its parent.
    public func commandPath(_ names: [String]) throws(UsageError) -> [String] {
        var spec = self
        var path: [String] = []
        for name in names {
            guard let next = spec.subcommand(named: name) else {
                let suggestion = Suggestions.closest(to: name, among: spec.subcommands.map(\.name))
                throw .unknownCommand(name, suggestion: suggestion, path: path)
            }
            spec = next
            path.append(name)
        }
        return path
    }

    /// Every command below this one, depth first, with its path (this one first, path `[]`).
    public func allCommands(path: [String] = []) -> [(path: [String], spec: CommandSpec)] {
        [(path, self)] + subcommands.flatMap { $0.allCommands(path: path + [$0.name]) }
    }

    /// Programming mistakes in this spec tree (duplicate names, a variadic
    /// positional that is not last, ...). Meant for a unit test that asserts
    /// it is empty; parsing does not check it.
    public func validationProblems() -> [String] {
        var problems: [String] = []
        var longs = Set<String>(), shorts = Set<Character>()
        for option in options {
            if option.long.isEmpty || option.long.hasPrefix("-") || option.long.contains("=") {
                problems.append("\(name): invalid long name '\(option.long)'")
            }
            if !longs.insert(option.long).inserted { problems.append("\(name): duplicate option '--\(option.long)'") }
            if let short = option.short, !shorts.insert(short).inserted {
                problems.append("\(name): duplicate short option '-\(short)'")
            }
        }
        if let variadic = positionals.firstIndex(where: { $0.arity.isVariadic }) {
            for later in positionals[(variadic + 1)...] where later.arity != .one {
                problems.append("\(name): positional \(later.name) after a variadic one must have arity .one")
            }
        }
        var names = Set<String>()
        for sub in subcommands {
            if !names.insert(sub.name).inserted { problems.append("\(name): duplicate subcommand '\(sub.name)'") }
            problems += sub.validationProblems().map { "\(name) \($0)" }
        }
        return problems
    }
}
