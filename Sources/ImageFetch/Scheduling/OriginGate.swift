/// What the scheduler knows of each origin (scheme, host, port) over a run, for every retrieval of
/// the pipeline: the dead-host breaker (after `downAfter` connect-level failures in a row with no
/// success between, the origin is down: later requests fail at once with `hostDown`; the mark is
/// also kept in the cache directory for `downTTL`, `HostDownMarks`, for other processes and the
/// next run; never under an address override, `--resolve`: that run did not reach the origin's own
/// address), and the host-wide backoff, whose one place is `schedule` (`OriginSchedule`: a 429/503
/// holds every request to the origin, the transfers already queued in the engine included). An
/// actor: retrievals ask it before each attempt and tell it how the attempt went. Bounded: at most
/// `maxOrigins` origins are remembered at once (counts of origins that answered are dropped).
public actor OriginGate {
    /// `downAfter`: connect-level failures in a row that mark an origin down (0: never);
    /// `downTTL`: seconds a mark lasts; `ignoresMarks`: marks found in the cache directory are
    /// cleared rather than obeyed (`--force-refresh`); `backoff`: the schedule's backoff after an
    /// unexplained throttle, timeout or reset.
    public struct Policy: Sendable, Hashable {
        public var downAfter = 4
        public var downTTL: Double = 600
        public var ignoresMarks = false
        public var backoff = OriginSchedule.Backoff()
        public init(downAfter: Int = 4, downTTL: Double = 600, ignoresMarks: Bool = false,
                    backoff: OriginSchedule.Backoff = OriginSchedule.Backoff()) {
            self.downAfter = downAfter
            self.downTTL = downTTL
            self.ignoresMarks = ignoresMarks
            self.backoff = backoff
        }
    }

    /// What a request to an origin may do now.
    public enum Admission: Sendable, Equatable {
        case go
        /// Held by a 429/503 of the origin: ask again after this many seconds.
        case wait(Double)
        /// Marked down: fail with this error.
        case down(FetchError)
    }

    static let maxOrigins = 65536
    let policy: Policy
    let marks: HostDownMarks?
    /// When a request to an origin may start (the holds after a 429/503).
    public nonisolated let schedule: OriginSchedule
    private var failures: [String: Int] = [:]
    private var down: [String: HostDownMarks.Mark] = [:]
    private let now: @Sendable () -> Double

    /// `holds`: where the schedule shares its holds with the other processes on the cache (nil:
    /// this process only, as under `--resolve`).
    public init(policy: Policy, marks: HostDownMarks?, holds: OriginHoldMarks? = nil,
                now: @escaping @Sendable () -> Double = { FileSystem.now() },
                monotonic: @escaping @Sendable () -> Double = { FileSystem.monotonic() }) {
        self.policy = policy
        self.marks = marks
        self.now = now
        self.schedule = OriginSchedule(backoff: policy.backoff, shared: holds, monotonic: monotonic, wall: now)
    }

    /// Before an attempt to `origin`; `overridden`: its address is not the one its name resolves
    /// to (`--resolve`), so the marks in the cache directory are neither obeyed nor cleared.
    public func admit(_ origin: String, overridden: Bool = false) -> Admission {
        if let mark = downMark(origin, overridden: overridden) { return .down(.hostDown(OriginGate.message(mark))) }
        let left = schedule.delay(before: origin)
        return left > 0 ? .wait(left) : .go
    }

    /// After an attempt to `origin`: `error` nil when it answered (any response, an image or not).
    /// `overridden` as for `admit`: a failure marks the origin down for this run only, and an
    /// answer clears no mark of the cache directory.
    public func record(_ origin: String, error: FetchError?, overridden: Bool = false) {
        guard let error else { return reached(origin, overridden: overridden) }
        switch error.cause {
        case .dns, .refused, .connectTimeout: failed(origin, error, overridden: overridden)
        case .cancelled, .constrained, .deniedAddress, .hostDown, .invalidSource: break
        default: reached(origin, overridden: overridden)
        }
    }

    private func downMark(_ origin: String, overridden: Bool) -> HostDownMarks.Mark? {
        if let mark = down[origin] {
            if mark.until > now() { return mark }
            down[origin] = nil
        }
        guard let marks, !overridden else { return nil }
        if policy.ignoresMarks {
            marks.clear(origin)
            return nil
        }
        guard policy.downAfter > 0 else { return nil }
        guard let mark = marks.mark(of: origin, now: now()) else { return nil }
        if down.count < OriginGate.maxOrigins { down[origin] = mark }
        return mark
    }

    private func reached(_ origin: String, overridden: Bool) {
        let wasFailing = failures.removeValue(forKey: origin) != nil
        let wasDown = down.removeValue(forKey: origin) != nil
        if !overridden, wasDown || wasFailing || policy.ignoresMarks { marks?.clear(origin) }
    }

    private func failed(_ origin: String, _ error: FetchError, overridden: Bool) {
        guard policy.downAfter > 0, down[origin] == nil else { return }
        let count = (failures[origin] ?? 0) + 1
        guard count >= policy.downAfter else {
            if failures[origin] != nil || failures.count < OriginGate.maxOrigins { failures[origin] = count }
            return
        }
        failures[origin] = nil
        let at = now()
        let reason = "\(count) connect-level failures in a row, the last: \(error.cause.rawValue) (\(error.cause.words))"
        let mark = HostDownMarks.Mark(origin: origin, since: at, until: at + (policy.downTTL > 0 ? policy.downTTL : 365 * 86400), reason: reason)
        down[origin] = mark
        if policy.downTTL > 0, !overridden { marks?.write(mark) }
    }

    /// `ORIGIN is marked down since TIME (REASON), until TIME: not tried`.
    static func message(_ mark: HostDownMarks.Mark) -> String {
        "\(mark.origin) is marked down since \(HTTPDate.iso8601(mark.since)) (\(mark.reason)), until \(HTTPDate.iso8601(mark.until)): not tried"
    }
}
