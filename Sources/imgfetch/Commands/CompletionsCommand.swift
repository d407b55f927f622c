import ArgumentKit

/// `imgfetch completions bash|zsh|fish`: the completion script, generated from the command specs.
enum CompletionsCommand {
    static func run(_ parsed: ParsedCommand) throws(UsageError) -> ExitCode {
        let name = parsed.positional("SHELL") ?? ""
        guard let shell = CompletionScript.Shell(rawValue: name) else {
            let names = CompletionScript.Shell.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("invalid value '\(name)' for SHELL: expected one of: \(names)", commandPath: ["completions"])
        }
        Console.out(CompletionScript.script(for: Specs.completed, shell: shell))
        return .ok
    }
}
