/// What a successful parse asks the caller to do.
public enum ParseOutcome: Sendable, Equatable {
    /// Run the command at `ParsedCommand.path` with the parsed arguments.
    case command(ParsedCommand)
    /// `--help` or `-h` appeared (before any `--`): print
    /// `HelpFormatter.help(for: root, path: path)` and exit 0.
    /// Help wins over any other usage error on the same command line.
    case help(path: [String])
    /// `--version` appeared at the root (before any subcommand): print the version, exit 0.
    case version
}
