import ArgumentKit
#if canImport(Glibc)
import Glibc
#endif

/// The password of `-u USER:PASSWORD` blanked in the process's own argument vector once the
/// command line is parsed, as curl does: for the rest of the run `/proc/PID/cmdline` (and `ps`)
/// show the user name and blanks. The parse has copied every value first (`runMain` reads
/// `CommandLine.arguments` before anything is overwritten). The password is still readable from
/// the start of the process until the parse: `--netrc-file` keeps it off the command line entirely.
enum ArgumentSecrets {
    /// Overwrites, with spaces, every byte after the first colon of each `-u`/`--user` value that
    /// `parsed` (parsed from `CommandLine.arguments` without the program name) found.
    static func blank(_ parsed: ParsedCommand) {
        for location in parsed.valueLocations(OptionKeys.user) {
            let index = location.argument + 1
            guard index > 0, index < Int(CommandLine.argc), let argument = CommandLine.unsafeArgv[index] else { continue }
            let length = strlen(argument)
            guard location.offset >= 0, location.offset <= length else { continue }
            var colon = location.offset
            while colon < length, argument[colon] != CChar(UInt8(ascii: ":")) { colon += 1 }
            guard colon + 1 < length else { continue }
            memset(argument + colon + 1, Int32(UInt8(ascii: " ")), length - colon - 1)
        }
    }
}
