/// A run's last resort against a hang: when for `timeout` seconds no line completes
/// (`completed`) and no byte arrives (`progress`, a count that only grows, such as a
/// `TransferMeter`'s total), it calls `onStall` once: the run's one stop path, which cancels what
/// is in flight and lets the run write what it owes. Time while `idle` says the run waits for its
/// input (a list read from a pipe) does not count. Checked every `interval` seconds on a task of
/// its own (`start`), or by `check` (tests, with their own clock). A lock (`Lock`): any thread.
public final class StallWatchdog: Sendable {
    /// The default of `--stall-timeout`: far beyond what a transfer's own bounds let one last.
    public static let defaultTimeout: Double = 600

    private struct State {
        var lastProgress: Int64 = -1
        var lastChange: Double = 0
        var fired = false
        var completions: Int64 = 0
        var task: Task<Void, Never>?
    }

    public let timeout: Double
    private let progress: @Sendable () -> Int64
    private let idle: @Sendable () -> Bool
    private let clock: @Sendable () -> Double
    private let onStall: @Sendable () -> Void
    private let state = Lock(State())

    public init(timeout: Double, progress: @escaping @Sendable () -> Int64, idle: @escaping @Sendable () -> Bool = { false },
                monotonic: @escaping @Sendable () -> Double = { FileSystem.monotonic() }, onStall: @escaping @Sendable () -> Void) {
        self.timeout = timeout
        self.progress = progress
        self.idle = idle
        self.clock = monotonic
        self.onStall = onStall
        let now = monotonic()
        state.withLock { $0.lastChange = now }
    }

    /// True once it has called `onStall`.
    public var fired: Bool { state.withLock { $0.fired } }

    /// A line of the run completed (delivered, failed or skipped).
    public func completed() {
        state.withLock { $0.completions += 1 }
    }

    /// Checks now: calls `onStall` (once) and returns true when the run made no progress for
    /// `timeout` seconds.
    @discardableResult
    public func check() -> Bool {
        let now = clock(), bytes = progress(), waiting = idle()
        let stalled = state.withLock { s -> Bool in
            guard !s.fired else { return false }
            let seen = bytes &+ s.completions
            if seen != s.lastProgress || waiting {
                s.lastProgress = seen
                s.lastChange = now
                return false
            }
            guard now - s.lastChange >= timeout else { return false }
            s.fired = true
            return true
        }
        if stalled { onStall() }
        return stalled
    }

    /// Checks every `interval` seconds (at most a tenth of `timeout`, at least 10 ms) until `stop`.
    public func start(interval: Double = 1) {
        let every = max(0.01, min(interval, timeout / 10))
        let task = Task.detached { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(every * 1_000_000_000))
                if Task.isCancelled || check() { return }
            }
        }
        state.withLock { $0.task = task }
    }

    public func stop() {
        state.withLock { s in
            s.task?.cancel()
            s.task = nil
        }
    }
}
