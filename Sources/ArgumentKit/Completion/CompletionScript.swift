/// Shell completion scripts generated from a `CommandSpec` tree, so they offer exactly what the
/// parser accepts: subcommands, options (with `global` ones of ancestors, `--help`, `--version` at
/// the root), and option and positional values by their ``ValueCompletion``.
public enum CompletionScript {
    /// The shells a script can be generated for.
    public enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    /// The script for `shell` completing the program `root.name`.
    public static func script(for root: CommandSpec, shell: Shell) -> String {
        let commands = Command.all(root)
        switch shell {
        case .bash: return bash(root: root, commands: commands)
        case .zsh: return zsh(root: root, commands: commands)
        case .fish: return fish(root: root, commands: commands)
        }
    }

    /// One command as a completion script sees it: its path and every option it accepts.
    struct Command {
        var path: [String]
        var spec: CommandSpec
        /// The command's visible options, its ancestors' global ones, then `--help` (and `--version`).
        var options: [OptionSpec]

        static func all(_ root: CommandSpec) -> [Command] {
            root.allCommands().map { entry in
                let chain = root.chain(for: entry.path)
                var options = entry.spec.options.filter { !$0.hidden }
                for ancestor in chain.dropLast().reversed() {
                    for option in ancestor.options where option.global && !option.hidden && !options.contains(where: { $0.long == option.long }) {
                        options.append(option)
                    }
                }
                if !options.contains(where: { $0.long == "help" }) {
                    let short: Character? = options.contains { $0.short == "h" } ? nil : "h"
                    options.append(.flag("help", short: short, help: "Show this help."))
                }
                if entry.path.isEmpty, !options.contains(where: { $0.long == "version" }) {
                    options.append(.flag("version", help: "Show the version."))
                }
                return Command(path: entry.path, spec: entry.spec, options: options)
            }
        }

        /// The completion of the command's positionals (the first that has one).
        var positionalCompletion: ValueCompletion {
            spec.positionals.first { $0.completion != .none }?.completion ?? .none
        }
    }

    /// A valid shell function name for a command path: `_imgfetch_cache_ls`.
    static func functionName(_ program: String, _ path: [String]) -> String {
        ([program] + path).map { name in
            String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        }.joined(separator: "_")
    }

    /// `text` in single quotes for bash or zsh (where a backslash inside is literal).
    static func quoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }

    /// `text` in single quotes for fish (where `\\` and `\'` are escapes inside).
    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }

    /// The first sentence of a help text, for a one-line description.
    static func summary(_ help: String) -> String {
        if let end = help.firstRange(of: ". ") { return String(help[..<end.lowerBound]) }
        return help.hasSuffix(".") ? String(help.dropLast()) : help
    }
}
