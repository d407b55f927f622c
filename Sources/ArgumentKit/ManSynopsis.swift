/// The SYNOPSIS section of a man page (mdoc) generated from a `CommandSpec` tree, so the page
/// lists exactly the commands the parser knows: one block per command that runs (a leaf), with
/// its ancestors' global options, its own options (or `[options]` when it has many) and its
/// positionals; then `--version`, `help [COMMAND]` and `-h | --help`.
public enum ManSynopsis {
    /// Commands with more options than this show `[options]` instead of each one.
    static let optionLimit = 4

    public static func mdoc(for root: CommandSpec) -> String {
        var lines: [String] = []
        for (path, spec) in root.allCommands() where !path.isEmpty && spec.subcommands.isEmpty {
            lines.append(".Nm")
            for ancestor in root.chain(for: path).dropLast() {
                for option in ancestor.options where option.global && !option.hidden {
                    lines.append(".Op " + flag(option))
                }
            }
            lines.append(".Cm " + path.joined(separator: " "))
            let options = spec.options.filter { !$0.hidden }
            if options.count > optionLimit {
                lines.append(".Op Ar options")
            } else {
                lines += options.map { ($0.required ? "." : ".Op ") + flag($0) }
            }
            for positional in spec.positionals {
                let words = positional.name.split(separator: "|").map { "Ar \($0)" }.joined(separator: " Ns | Ns ")
                switch positional.arity {
                case .one: lines.append(".\(words)")
                case .optional: lines.append(".Op \(words)")
                case .oneOrMore: lines.append(".\(words) ...")
                case .zeroOrMore: lines.append(".Op \(words) ...")
                }
            }
        }
        lines += [".Nm", ".Fl -version", ".Nm", ".Cm help", ".Op Ar COMMAND", ".Nm", ".Op Ar COMMAND", ".Fl h | -help"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `Fl -sort Ar FIELD`, `Fl o Ar FILE` (the short name when there is one), `Fl -json`.
    static func flag(_ option: OptionSpec) -> String {
        let name = option.short.map { "Fl \($0)" } ?? "Fl -\(option.long)"
        switch option.kind {
        case .flag: return name
        case .value, .repeatedValue: return name + " Ar \(option.valueName)"
        case .flagOrValue: return "Fl -\(option.long) Ns Op = Ns Ar \(option.valueName)"
        }
    }
}
