/// When a request to an origin may start: the one place that decides it. It is asked right before
/// each transfer to the origin actually starts (the curl engine's origin gate, `OriginStart`), not
/// only when the request is queued, and by `OriginGatedLoader` before a load is queued at all (so
/// a held request waits as a task, not in the engine's queue). Today it holds an origin after a
/// 429 or 503: from the moment the answer arrives (on the loop thread, before the engine starts
/// another transfer) while the retrieval decides, at most `decisionLimit`; then for the wait of
/// the retry it decided (`hold`), or not at all (`release`: not retried). A later hold extends an
/// earlier one to the later end, never the sum. And it backs an origin off without being told
/// (`Backoff`, `struck`): after a 429 or 503 without `Retry-After`, a timeout or a reset, every
/// request to the origin waits `base` doubled per strike in a row (with jitter, at most `cap`);
/// an answer that is not a 429/503 (`cleared`) resets the strikes. After a hold of a 429/503
/// ends, the origin stays paced for `paceWindow` seconds: its transfers start at least `base` apart (it said it was
/// asked too much: the held requests do not all start at once). How long each origin was held
/// is kept for the run's summary (`heldOrigins`). Bounded: at most `maxOrigins` origins at once.
/// With `shared` (the cache directory's `OriginHoldMarks`), the decided holds and the strikes are
/// those of every process on the cache: a hold or strike is written there, and before a request
/// starts the origin's mark is read when the marks' directory changed since this process last
/// read it (one `lstat` per request otherwise; none of a file while nothing is held); a paced
/// origin's start is taken under its lock file (`OriginHoldMarks.claimStart`), so the processes
/// together start one transfer per `base`.
/// A lock (`Lock`), not an actor: the loop thread asks it synchronously.
public final class OriginSchedule: Sendable {
    /// The backoff after an unexplained throttle or failure: the first wait `base` seconds (0: no
    /// backoff), doubled per strike in a row, plus up to a quarter of it at random, at most `cap`.
    public struct Backoff: Sendable, Hashable {
        public var base: Double
        public var cap: Double
        public static let defaultBase: Double = 1
        public static let defaultCap: Double = 60
        public init(base: Double = Backoff.defaultBase, cap: Double = Backoff.defaultCap) {
            self.base = base
            self.cap = cap
        }

        /// The wait after strike number `strike` (1-based); `random` in 0..<1.
        public func wait(strike: Int, random: Double) -> Double {
            guard base > 0, base.isFinite, cap > 0 else { return 0 }
            let exponential = base * Double(1 << min(max(strike - 1, 0), 30))
            return min(cap, exponential + exponential / 4 * min(max(random, 0), 1))
        }
    }

    /// How long one origin was held over the run (every hold: `Retry-After` and backoff) and how
    /// many times a hold began or grew.
    public struct Held: Sendable, Equatable {
        public var origin: String
        public var seconds: Double
        public var times: Int
    }

    private struct State {
        /// Until when (monotonic seconds) each origin is held by a decided wait.
        var holds: [String: Double] = [:]
        /// Until when an origin that answered 429/503 is held while its retrieval decides.
        var deciding: [String: Double] = [:]
        /// The least time between two transfers' starts to an origin (robots.txt's `Crawl-delay`),
        /// and when the last one started.
        var intervals: [String: Double] = [:]
        var lastStart: [String: Double] = [:]
        /// Unexplained throttles or failures in a row, by origin.
        var strikes: [String: Int] = [:]
        /// Seconds held and holds, by origin.
        var held: [String: (seconds: Double, times: Int)] = [:]
        /// The shared marks' directory stamp when each origin's mark was last read.
        var seen: [String: Double] = [:]
        /// Until when each origin's starts are paced, and its last paced start.
        var paced: [String: Double] = [:]
        var lastPaced: [String: Double] = [:]

        /// Paces `origin` until `until` (the later end).
        mutating func pace(_ origin: String, until: Double) {
            guard until > (paced[origin] ?? 0), paced[origin] != nil || paced.count < OriginSchedule.maxOrigins else { return }
            paced[origin] = until
        }

        /// Holds `origin` until `until` (the later end when it is held already), counting the time added.
        mutating func extend(_ origin: String, until: Double, now: Double) {
            let from = max(now, holds[origin] ?? now)
            guard until > from else { return }
            guard holds[origin] != nil || holds.count < OriginSchedule.maxOrigins else { return }
            holds[origin] = until
            if held[origin] != nil || held.count < OriginSchedule.maxOrigins {
                held[origin, default: (0, 0)].seconds += until - from
                held[origin, default: (0, 0)].times += 1
            }
        }
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
    /// A marks' directory stamp younger than this may not be the last of its clock tick (a mark
    /// written in the same tick leaves the same stamp): the origin's mark is read again next time.
    static let settle: Double = 0.05
    /// How long after its hold ends an origin's starts stay `base` apart: a minute.
    public static let paceWindow: Double = 60
    private let state = Lock(State())
    private let clock: @Sendable () -> Double
    private let wall: @Sendable () -> Double
    private let random: @Sendable () -> Double
    private let shared: OriginHoldMarks?
    public let backoff: Backoff

    public init(backoff: Backoff = Backoff(), shared: OriginHoldMarks? = nil,
                monotonic: @escaping @Sendable () -> Double = { FileSystem.monotonic() },
                wall: @escaping @Sendable () -> Double = { FileSystem.now() },
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.backoff = backoff
        self.shared = shared
        clock = monotonic
        self.wall = wall
        self.random = random
    }

    /// Seconds before a request to `origin` may start, or may ask again (at most `recheck` while a
    /// retrieval decides); 0: now.
    public func delay(before origin: String) -> Double {
        adoptShared(origin)
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
        let paced = pacedWait(origin)
        guard paced <= 0 else { return paced }
        let now = clock()
        return state.withLock { s in
            guard let interval = s.intervals[origin] else { return 0 }
            // Another transfer may have started since `delay` was read: ask again under the lock.
            if let last = s.lastStart[origin], last + interval > now { return last + interval - now }
            s.lastStart[origin] = now
            return 0
        }
    }

    /// The wait before a start to a paced origin (0: it starts now, taken as its last paced start):
    /// `base` after this process's last paced start, and, shared, after the other processes'.
    private func pacedWait(_ origin: String) -> Double {
        let spacing = backoff.base
        guard spacing > 0, spacing.isFinite else { return 0 }
        let now = clock()
        let local = state.withLock { s -> Double? in
            guard let until = s.paced[origin] else { return nil }
            guard until > now else {
                s.paced[origin] = nil
                s.lastPaced[origin] = nil
                return nil
            }
            if let last = s.lastPaced[origin], last + spacing > now { return last + spacing - now }
            return 0
        }
        guard let local else { return 0 }
        guard local <= 0 else { return local }
        if let shared {
            let wait = shared.claimStart(origin, spacing: spacing, now: wall())
            if wait > 0 { return min(wait, spacing) }
        }
        state.withLock { s in
            if s.lastPaced[origin] != nil || s.lastPaced.count < OriginSchedule.maxOrigins { s.lastPaced[origin] = now }
        }
        return 0
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
        let now = clock()
        let shared = state.withLock { s -> (left: Double, strikes: Int)? in
            s.deciding[origin] = nil
            guard seconds > 0, seconds.isFinite else { return nil }
            s.extend(origin, until: now + seconds, now: now)
            let left = (s.holds[origin] ?? now) - now
            s.pace(origin, until: now + left + OriginSchedule.paceWindow)
            return (left, s.strikes[origin] ?? 0)
        }
        if let shared, shared.left > 0 { share(origin, until: wall() + shared.left, strikes: shared.strikes) }
    }

    /// `origin` throttled or failed without saying for how long (a 429 or 503 without
    /// `Retry-After`, a timeout, a reset): every request to it waits the backoff of this strike in
    /// a row (the later end when it is held already); a failure while a backoff holds the origin
    /// (a transfer started before it) is no new strike. `throttled`: a 429/503, after whose hold the
    /// origin is paced. Returns the wait left (0: backoff off).
    @discardableResult
    public func struck(_ origin: String, throttled: Bool = false) -> Double {
        // Another process's strike of the origin since this one last looked is one of this row.
        adoptShared(origin)
        let now = clock(), r = random()
        let (wait, strike, left) = state.withLock { s -> (Double, Int?, Double) in
            // Held by a backoff already: this failure is one of the transfers under way when the
            // first struck, not a new one after the wait (which would double it again).
            if s.strikes[origin] != nil, let until = s.holds[origin], until > now { return (until - now, nil, 0) }
            let strike = (s.strikes[origin] ?? 0) + 1
            if s.strikes[origin] != nil || s.strikes.count < OriginSchedule.maxOrigins { s.strikes[origin] = strike }
            let wait = backoff.wait(strike: strike, random: r)
            if wait > 0 { s.extend(origin, until: now + wait, now: now) }
            let left = (s.holds[origin] ?? now) - now
            if wait > 0, throttled { s.pace(origin, until: now + left + OriginSchedule.paceWindow) }
            return (wait, strike, left)
        }
        if let strike, left > 0 { share(origin, until: wall() + left, strikes: strike) }
        return wait
    }

    /// `origin` answered with something else than a 429/503: its strikes start again from none
    /// (a hold already set still ends when it ends), in the shared mark too when it had some.
    public func cleared(_ origin: String) {
        let now = clock()
        let left = state.withLock { s -> (hold: Double, paced: Double)? in
            guard s.strikes.removeValue(forKey: origin) != nil else { return nil }
            return (max((s.holds[origin] ?? now) - now, 0), max((s.paced[origin] ?? now) - now, 0))
        }
        // Written, not removed: a mark of 0 strikes tells the other processes the row ended.
        if let left { share(origin, until: wall() + left.hold, strikes: 0) }
    }

    /// Takes in the shared mark of `origin` (another process's hold and strikes) when the marks'
    /// directory changed since this process last read it.
    private func adoptShared(_ origin: String) {
        guard let shared, let stamp = shared.stamp() else { return }
        if state.withLock({ $0.seen[origin] == stamp }) { return }
        let wallNow = wall()
        let mark = shared.mark(of: origin, now: wallNow)
        let now = clock()
        state.withLock { s in
            if wallNow - stamp >= OriginSchedule.settle, s.seen[origin] != nil || s.seen.count < OriginSchedule.maxOrigins {
                s.seen[origin] = stamp
            }
            guard let mark else { return }
            // The mark is the last word of any process on the origin (every strike and success
            // of one is written): its strikes, fewer ones included (a success elsewhere).
            if mark.strikes == 0 {
                s.strikes[origin] = nil
            } else if s.strikes[origin] != nil || s.strikes.count < OriginSchedule.maxOrigins {
                s.strikes[origin] = mark.strikes
            }
            // A hold this process holds already (its own mark read back) is no new one.
            let until = now + (mark.until - wallNow)
            if mark.until > wallNow, until > (s.holds[origin] ?? now) + OriginSchedule.settle { s.extend(origin, until: until, now: now) }
            if mark.pacedUntil > wallNow { s.pace(origin, until: now + (mark.pacedUntil - wallNow)) }
        }
    }

    /// Writes the hold of `origin` for the other processes on the cache.
    private func share(_ origin: String, until: Double, strikes: Int) {
        guard let shared else { return }
        let now = clock(), wallNow = wall()
        let paced = state.withLock { s in s.paced[origin].map { wallNow + ($0 - now) } ?? 0 }
        shared.write(OriginHoldMarks.Mark(origin: origin, until: until, strikes: strikes, pacedUntil: paced, next: until), now: wallNow)
    }

    /// The origins held at some point of the run, the longest held first.
    public func heldOrigins() -> [Held] {
        state.withLock { s in s.held.map { Held(origin: $0.key, seconds: $0.value.seconds, times: $0.value.times) } }
            .sorted { $0.seconds != $1.seconds ? $0.seconds > $1.seconds : $0.origin < $1.origin }
    }

    /// The retrieval does not retry the 429/503 of `origin`: nothing holds it but an earlier hold.
    public func release(_ origin: String) {
        state.withLock { s in s.deciding[origin] = nil }
    }
}
