#if canImport(Glibc)
import Glibc
#endif
import ImageFetch

/// Exit codes of the contract.
enum ExitCode: Int32 {
    case ok = 0
    case failed = 1
    case usage = 2
    case notCached = 3
    case cacheUnusable = 4
    /// `get`: the server answered with an HTTP error (`FailureClass.http`).
    case httpError = 5
    /// `get`: a network failure (`FailureClass.network`).
    case network = 6
    /// `get`: what arrived is not a usable image (`FailureClass.image`).
    case unusableImage = 7
    /// `get`: skipped by policy (robots.txt disallows it, or the server opted out): nothing delivered.
    case skipped = 9
    /// Stopped by SIGHUP (128 + 1): the terminal or the session went away.
    case hangup = 129
    /// Interrupted by SIGINT (128 + 2, as shells report it).
    case interrupted = 130
    /// `prefetch`'s standard output was closed by its reader (EPIPE, as in `| head -1`): the run
    /// stopped early. 128 + SIGPIPE, what a shell reports for a writer that a closed pipe ended.
    case outputClosed = 141
    /// Stopped by SIGTERM (128 + 15).
    case terminated = 143

    /// The code after `signal`: 130 after SIGINT, 143 after SIGTERM, 129 after SIGHUP.
    init(signal: Int32) {
        switch signal {
        case SIGTERM: self = .terminated
        case SIGHUP: self = .hangup
        default: self = .interrupted
        }
    }
}

/// Writes to stdout and stderr with plain POSIX calls (no buffering surprises when exiting on an error path).
enum Console {
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }
    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    static func out(_ text: String) { write(fd: 1, Array(text.utf8)) }
    static func err(_ text: String) { write(fd: 2, Array(text.utf8)) }
    static func line(_ text: String) { out(text + "\n") }
    /// `imgfetch: TEXT` on stderr, control characters in TEXT shown as escapes (`TerminalText`):
    /// sources and server text are checked where they enter, this is the last line of defence.
    static func errorLine(_ text: String) { err("imgfetch: " + TerminalText.escaped(text) + "\n") }

    /// Writes all bytes; false when the reader went away (EPIPE) or the write failed.
    @discardableResult
    static func write(fd: Int32, _ bytes: [UInt8]) -> Bool {
        FileSystem.writeAll(fd: fd, bytes) == nil
    }

    /// The home directory of the user's passwd entry (used when HOME is unset or empty).
    static func passwdHome() -> String? {
        guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else { return nil }
        let home = String(cString: dir)
        return home.isEmpty ? nil : home
    }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }
}
