/// When a request to an origin may start: the one place that decides it. It is asked right before
/// each transfer to the origin actually starts (the curl engine's origin gate, `OriginStart`), not
/// only when the request is queued, and by `OriginGatedLoader` before a load is queued at all (so
/// a held request waits as a task, not in the engine's queue). Today it holds an origin after a
/// 429 or 503: from the moment the answer arrives (on the loop thread, before the engine starts
/// another transfer) while the retrieval decides, at most `decisionLimit`; then for the wait of
/// the retry it decided (`hold`), or not at all (`release`: not retried). A later hold extends an
/// earlier one to the later end, never the sum. Bounded: at most `maxOrigins` origins at once.
/// A lock (`Lock`), not an actor: the loop thread asks it synchronously.
public final class OriginSchedule: Sendable {
    private struct State {
        /// Until when (monotonic seconds) each origin is held by a decided wait.
        var holds: [String: Double] = [:]
        /// Until when an origin that answered 429/503 is held while its retrieval decides.
        var deciding: [String: Double] = [:]
        /// The least time between two transfers' starts to an origin (robots.txt's `Crawl-delay`),
        /// and when the last one started.
        var intervals: [String: Double] = [:]
        var lastStart: [String: Double] = [:]
    }

    /// The longest `Crawl-delay` honoured: 60 s (a larger one is taken as 60 s).
    public static let maxInterval: Double = 60

    static let maxOrigins = 65536
    /// The longest an answer holds its origin before the retrieval has decided (a retrieval that
    /// never does: cancelled in between).
    static let decisionLimit: Double = 5
    /// How soon a request held while a retrieval decides asks again: the decision may end the hold
    /// (not retried) or set a shorter one, which a wait until `decisionLimit` would overshoot.
    static let recheck: Double = 0.05
    private let state = Lock(State())
    private let clock: @Sendable () -> Double

    public init(monotonic: @escaping @Sendable () -> Double = { FileSystem.monotonic() }) {
        clock = monotonic
    }

    /// Seconds before a request to `origin` may start, or may ask again (at most `recheck` while a
    /// retrieval decides); 0: now.
    public func delay(before origin: String) -> Double {
        let now = clock()
        return state.withLock { s in
            var wait = 0.0
            if let held = s.holds[origin] {
                if held > now { wait = held - now } else { s.holds[origin] = nil }
            }
            if let deciding = s.deciding[origin] {
                if deciding > now { wait = max(wait, min(deciding - now, OriginSchedule.recheck)) } else { s.deciding[origin] = nil }
            }
            if let interval = s.intervals[origin], let last = s.lastStart[origin], last + interval > now {
                wait = max(wait, last + interval - now)
            }
            return wait
        }
    }

    /// As `delay(before:)`, asked right before a transfer starts: 0 also says it starts now (the
    /// next one to an origin with a minimum interval waits from here).
    public func delayStarting(_ origin: String) -> Double {
        let wait = delay(before: origin)
        guard wait <= 0 else { return wait }
        let now = clock()
        return state.withLock { s in
            guard let interval = s.intervals[origin] else { return 0 }
            // Another transfer may have started since `delay` was read: ask again under the lock.
            if let last = s.lastStart[origin], last + interval > now { return last + interval - now }
            s.lastStart[origin] = now
            return 0
        }
    }

    /// Transfers to `origin` start at least `seconds` apart (at most `maxInterval`; 0: no interval).
    public func setMinimumInterval(_ origin: String, seconds: Double) {
        let interval = seconds.isFinite ? min(max(seconds, 0), OriginSchedule.maxInterval) : 0
        state.withLock { s in
            if interval == 0 { s.intervals[origin] = nil } else if s.intervals[origin] != nil || s.intervals.count < OriginSchedule.maxOrigins {
                s.intervals[origin] = interval
            }
        }
    }

    /// A transfer to `origin` ended with `status` (0: no response): a 429 or 503 holds the origin
    /// until its retrieval decides (`hold` or `release`), at most `decisionLimit`.
    public func answered(_ origin: String, status: Int) {
        guard status == 429 || status == 503 else { return }
        let until = clock() + OriginSchedule.decisionLimit
        state.withLock { s in
            if s.deciding[origin] != nil || s.deciding.count < OriginSchedule.maxOrigins { s.deciding[origin] = until }
        }
    }

    /// The retrieval retries a 429/503 of `origin` in `seconds`: every request to it waits as long
    /// (the later end when it is held already).
    public func hold(_ origin: String, for seconds: Double) {
        let until = clock() + seconds
        state.withLock { s in
            s.deciding[origin] = nil
            guard seconds > 0, seconds.isFinite else { return }
            if s.holds[origin].map({ until > $0 }) ?? (s.holds.count < OriginSchedule.maxOrigins) { s.holds[origin] = until }
        }
    }

    /// The retrieval does not retry the 429/503 of `origin`: nothing holds it but an earlier hold.
    public func release(_ origin: String) {
        state.withLock { s in s.deciding[origin] = nil }
    }
}
