import ArgumentKit
import ImageFetch
#if canImport(Glibc)
import Glibc
#endif

/// Parses the command line, runs the command, exits with the contract's code. Nothing else lives here.
func runMain() async -> ExitCode {
    var arguments = Array(CommandLine.arguments.dropFirst())
    // `imgfetch help COMMAND` is `imgfetch COMMAND --help`.
    if arguments.first == "help" { arguments = Array(arguments.dropFirst()) + ["--help"] }
    do {
        switch try Specs.root.parse(arguments) {
        case .version:
            Console.line("imgfetch \(ImageFetchVersion.string)")
            return .ok
        case .help(let path):
            Console.out(HelpFormatter.help(for: Specs.root, path: path))
            return .ok
        case .command(let given):
            let parsed = try ConfigFile.apply(to: given, environment: Console.environment)
            switch parsed.path {
            case ["get"]: return try await GetCommand.run(parsed)
            case ["prefetch"]: return try await PrefetchCommand.run(parsed)
            case let path where path.first == "cache": return try CacheCommands.run(parsed)
            default:
                Console.out(HelpFormatter.help(for: Specs.root, path: []))
                return .usage
            }
        }
    } catch {
        Console.errorLine(error.message)
        Console.err("Try 'imgfetch \(error.commandPath.joined(separator: " "))\(error.commandPath.isEmpty ? "" : " ")--help'.\n")
        return .usage
    }
}

signal(SIGPIPE, SIG_IGN)
VipsBridge.restrictModules()
let code = await runMain()
// _exit, not exit: output is written with write(2), unbuffered, so nothing needs flushing, and the
// atexit handlers of dlopen'ed libcurl/OpenSSL/libvips would tear down state that their own threads
// (the transfer loop, vips workers) may still be using, which crashes at exit.
_exit(code.rawValue)
