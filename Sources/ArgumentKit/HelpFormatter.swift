/// Renders `--help` text from a `CommandSpec` tree.
///
/// Layout (sections omitted when empty), wrapped to `width` columns:
///
///     Usage: imgfetch get [options] SOURCE
///
///     Fetch one image.
///
///     Arguments:
///       SOURCE              URL or file path; - for stdin
///
///     Options:
///       -s, --size WxH      Resize to fit (default: original)
///       -h, --help          Show this help.
///
///     Global options:       (options marked `global` on ancestors)
///     Commands:             (subcommands with their abstracts)
///
///     <discussion>
///
/// All two-column sections share one help-text column so they line up.
public enum HelpFormatter {
    /// Widest left column before help text moves to its own line.
    static let maxColumn = 32

    /// Full help for the command at `path` below `root` (`[]` for the root
    /// itself; unknown names are ignored, giving help for the deepest match).
    public static func help(for root: CommandSpec, path: [String] = [], width: Int = 80) -> String {
        let chain = root.chain(for: path)
        let command = chain[chain.count - 1]
        let names = chain.map(\.name)
        var sections: [[String]] = []

        sections.append(TextWrap.wrap("Usage: " + usage(for: root, path: path), width: width, indent: 7, firstIndent: 0))
        if !command.abstract.isEmpty {
            sections.append(TextWrap.wrap(command.abstract, width: width))
        }

        let tables = rowTables(chain: chain)
        let labelWidth = tables.flatMap { $0.rows.map(\.label.count) }.max() ?? 0
        let column = min(2 + labelWidth + 3, maxColumn)
        for table in tables where !table.rows.isEmpty {
            var lines = [table.title + ":"]
            for row in table.rows {
                lines += tableRow(label: row.label, text: row.text, column: column, width: width)
            }
            sections.append(lines)
        }

        if let discussion = command.discussion, !discussion.isEmpty {
            sections.append(TextWrap.wrapPreservingIndent(discussion, width: width))
        }
        if !command.subcommands.isEmpty {
            let hint = "Run '\(names.joined(separator: " ")) COMMAND --help' for help on a command."
            sections.append(TextWrap.wrap(hint, width: width))
        }
        return sections.map { $0.joined(separator: "\n") }.joined(separator: "\n\n") + "\n"
    }

    /// The usage line (without `Usage: `) for the command at `path`:
    /// `CommandSpec.usage` if set, otherwise generated, e.g.
    /// `imgfetch cache ls [options] [PATTERN...]`.
    public static func usage(for root: CommandSpec, path: [String] = []) -> String {
        let chain = root.chain(for: path)
        let command = chain[chain.count - 1]
        if let usage = command.usage { return usage }
        var parts = chain.map(\.name) + ["[options]"]
        if !command.subcommands.isEmpty {
            parts.append(command.subcommandRequired ? "COMMAND" : "[COMMAND]")
        }
        parts += command.positionals.map(\.usageToken)
        return parts.joined(separator: " ")
    }

    // MARK: Tables

    struct Row { var label: String, text: String }
    struct Table { var title: String, rows: [Row] }

    static func rowTables(chain: [CommandSpec]) -> [Table] {
        let command = chain[chain.count - 1]
        let arguments = command.positionals.map { Row(label: $0.name, text: $0.help) }

        var options = command.options.filter { !$0.hidden }.map(optionRow)
        let declared = Set(command.options.map(\.long))
        var globals: [OptionSpec] = []
        for ancestor in chain.dropLast().reversed() {
            for option in ancestor.options where option.global && !option.hidden {
                if !declared.contains(option.long), !globals.contains(where: { $0.long == option.long }) {
                    globals.append(option)
                }
            }
        }
        let scope = command.options + globals
        if !scope.contains(where: { $0.long == "help" }) {
            let claimsH = scope.contains { $0.short == "h" }
            options.append(Row(label: claimsH ? "    --help" : "-h, --help", text: "Show this help."))
        }
        if chain.count == 1, !scope.contains(where: { $0.long == "version" }) {
            options.append(Row(label: "    --version", text: "Show the version."))
        }
        let commands = command.subcommands.map { Row(label: $0.name, text: $0.abstract) }
        return [
            Table(title: "Arguments", rows: arguments),
            Table(title: "Options", rows: options),
            Table(title: "Global options", rows: globals.map(optionRow)),
            Table(title: "Commands", rows: commands),
        ]
    }

    static func optionRow(_ option: OptionSpec) -> Row {
        var text = option.help
        if option.kind == .repeatedValue { text += " (repeatable)" }
        if let defaultDescription = option.defaultDescription { text += " (default: \(defaultDescription))" }
        return Row(label: option.helpLabel, text: text)
    }

    /// `  label   text...` with `text` starting at `column` and wrapped under
    /// itself; a label too wide for the column puts the text on the next line.
    static func tableRow(label: String, text: String, column: Int, width: Int) -> [String] {
        let head = "  " + label
        guard !text.isEmpty else { return [head] }
        if head.count + 2 > column {
            return [head] + TextWrap.wrap(text, width: width, indent: column)
        }
        var lines = TextWrap.wrap(text, width: width, indent: column)
        lines[0] = head + String(lines[0].dropFirst(head.count))
        return lines
    }
}
