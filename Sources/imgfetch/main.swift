import ArgumentKit
import CSignals
import ImageFetch
#if canImport(Glibc)
import Glibc
#endif

/// Parses the command line, runs the command, exits with the contract's code. Nothing else lives here.
func runMain() async -> ExitCode {
    let arguments = Array(CommandLine.arguments.dropFirst())
    do throws(UsageError) {
        // The man page's SYNOPSIS, generated from the specs (scripts/update-man.sh splices it in).
        if arguments == ["--help-man-synopsis"] {
            Console.out(ManSynopsis.mdoc(for: Specs.root))
            return .ok
        }
        // `imgfetch help [COMMAND...]`: help for that command; a name that is not one is a usage error.
        if arguments.first == "help" {
            let path = try Specs.root.commandPath(arguments.dropFirst().filter { $0 != "--help" && $0 != "-h" })
            Console.out(HelpFormatter.help(for: Specs.root, path: path))
            return .ok
        }
        switch try Specs.parser(for: arguments).parse(arguments) {
        case .version:
            Console.out(VersionReport.text(LibraryVersions.probe()))
            return .ok
        case .help(let path):
            Console.out(HelpFormatter.help(for: Specs.root, path: path))
            return .ok
        case .command(let given):
            ArgumentSecrets.blank(given)
            do throws(UsageError) {
                // The config file's options (get, prefetch) before the command line's.
                let parsed = try ConfigFile.apply(to: given, environment: Console.environment)
                return try await run(parsed)
            } catch {
                // A value a command rejects is reported with that command's help hint.
                throw error.commandPath.isEmpty ? UsageError(error.message, commandPath: given.path) : error
            }
        }
    } catch {
        let error = UsageHints.reworded(error, arguments: arguments)
        Console.errorLine(error.message)
        Console.err("Try 'imgfetch \(error.commandPath.joined(separator: " "))\(error.commandPath.isEmpty ? "" : " ")--help'.\n")
        return .usage
    }
}

/// Runs the parsed command.
func run(_ parsed: ParsedCommand) async throws(UsageError) -> ExitCode {
    switch parsed.path {
    case ["get"]: return try await GetCommand.run(parsed)
    case ["prefetch"]: return try await PrefetchCommand.run(parsed)
    case ["cache", "push"], ["cache", "pull"]: return try await CacheRemoteCommands.run(parsed)
    case let path where path.first == "cache": return try CacheCommands.run(parsed)
    case ["completions"]: return try CompletionsCommand.run(parsed)
    default:
        Console.out(HelpFormatter.help(for: Specs.root, path: []))
        return .usage
    }
}

signal(SIGPIPE, SIG_IGN)
// A prefetch keeps hundreds of connections (and their threads' descriptors) open: the soft
// descriptor limit (often 1024) is raised to the hard one, as servers do. The work stays bounded by
// whatever limit results (`Console.descriptorLimit`).
Console.raiseDescriptorLimit()
// SIGINT / SIGTERM: remove the temporary files being written (the cache's, -o's), exit 130 / 143.
// The cache stays valid (an entry is committed by a rename). prefetch installs its own handling.
ifs_exit_on_signals()
VipsBridge.restrictModules()
let code = await runMain()
// _exit, not exit: output is written with write(2), unbuffered, so nothing needs flushing, and the
// atexit handlers of dlopen'ed libcurl/OpenSSL/libvips would tear down state that their own threads
// (the transfer loop, vips workers) may still be using, which crashes at exit.
_exit(code.rawValue)
