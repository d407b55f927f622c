import CSignals
import Dispatch
import ImageFetch
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C / SIGTERM / SIGHUP: stop starting new work, cancel what is in flight (the cache stays
/// valid: every write is an atomic rename; a download cut short keeps its bytes to be resumed),
/// then the caller writes what it owes (the remaining and failed lines, the summary) and exits with
/// 128 + the signal (130, 143, 129). A signal the process started with ignored stays ignored. A
/// second signal removes the temporary files being written and exits at once.
final class Interrupts: Sendable {
    private struct State {
        /// The first signal received; nil for none.
        var first: Int32?
        /// What the first signal stops, once there is something to stop (`whenStopped`).
        var action: (@Sendable (Int32) -> Void)?
    }

    /// Written by the signal sources' handler (a dispatch queue), read by the run that stops.
    private let state = Lock(State())

    /// `stop` runs on the first signal, or at once when one came already.
    func whenStopped(_ stop: @escaping @Sendable (Int32) -> Void) {
        let already = state.withLock { s -> Int32? in
            s.action = stop
            return s.first
        }
        if let already { stop(already) }
    }

    var happened: Bool { signal != nil }
    /// The first signal received (SIGINT, SIGTERM or SIGHUP), if any.
    var signal: Int32? { state.withLock { $0.first } }

    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    static func onSignal(_ stop: (@Sendable (Int32) -> Void)? = nil) -> Interrupts {
        let interrupts = Interrupts()
        if let stop { interrupts.whenStopped(stop) }
        for sig in handled where ifs_signal_was_ignored(sig) == 0 {
            Glibc.signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                // Under the lock `whenStopped` takes: one of the two runs the stop.
                let (again, stop) = interrupts.state.withLock { s in
                    guard s.first == nil else { return (true, s.action) }
                    s.first = sig
                    return (false, s.action)
                }
                if again {
                    TemporaryFiles.removeAll()
                    _exit(ExitCode(signal: sig).rawValue)
                }
                stop?(sig)
            }
            source.resume()
            sources.append(source)
        }
        return interrupts
    }

    /// `get`'s: a signal stops the run (`FetchRun.cancel`): the downloads in flight keep what came
    /// as a timeout does (resumed by the next run with `Range` + `If-Range`), new ones are refused;
    /// work past the download (a decode, a store: the whole body is in memory) finishes, so its
    /// entry is kept. The caller then exits with 128 + the signal, writing no image.
    /// With no attempt in flight (a wait before a retry, a cache lookup, an upload after the image
    /// is out) it removes the temporary files and exits at once, as before any work.
    static func stopping(_ run: FetchRun) -> Interrupts {
        onSignal { sig in
            run.cancel()
            guard run.pipeline.activity.attemptsInFlight > 0 else {
                TemporaryFiles.removeAll()
                _exit(ExitCode(signal: sig).rawValue)
            }
        }
    }

    /// Keeps the signal sources alive for the process. Written only on the main path before the
    /// work starts and never read, so unsynchronised access is safe.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
}
