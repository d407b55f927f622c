import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// What the terminal on a descriptor can show: its width, and whether it takes escape codes.
enum Terminal {
    /// The width of the terminal on `fd` (TIOCGWINSZ), nil when it is not a terminal or says 0.
    static func columns(fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Calls `handler` (on a dispatch queue) each time the terminal is resized (SIGWINCH).
    static func onResize(_ handler: @escaping @Sendable () -> Void) {
        signal(SIGWINCH, SIG_IGN)   // dispatch delivers it; its default action is to ignore it anyway
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        sources.append(source)
    }

    /// Keeps the signal sources alive for the process. Written only on the main path before the
    /// work starts and never read, so unsynchronised access is safe.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
}
