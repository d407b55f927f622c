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
    /// Interrupted by SIGINT or SIGTERM (128 + 2, as shells report it).
    case interrupted = 130
    /// `prefetch`'s standard output was closed by its reader (EPIPE, as in `| head -1`): the run
    /// stopped early. 128 + SIGPIPE, what a shell reports for a writer that a closed pipe ended.
    case outputClosed = 141
}

/// Writes to stdout and stderr with plain POSIX calls (no buffering surprises when exiting on an error path).
enum Console {
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }
    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    static func out(_ text: String) { write(fd: 1, Array(text.utf8)) }
    static func err(_ text: String) { write(fd: 2, Array(text.utf8)) }
    static func line(_ text: String) { out(text + "\n") }
    static func errorLine(_ text: String) { err("imgfetch: " + text + "\n") }

    /// Writes all bytes; false when the reader went away (EPIPE) or the write failed.
    @discardableResult
    static func write(fd: Int32, _ bytes: [UInt8]) -> Bool {
        FileSystem.writeAll(fd: fd, bytes) == nil
    }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }
}
