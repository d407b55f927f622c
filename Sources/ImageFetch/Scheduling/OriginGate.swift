/// What the scheduler knows of each origin (scheme, host, port) over a run, for every retrieval of
/// the pipeline: the dead-host breaker (after `downAfter` connect-level failures in a row with no
/// success between, the origin is down: later requests fail at once with `hostDown`; the mark is
/// also kept in the cache directory for `downTTL`, `HostDownMarks`, for other processes and the
/// next run), and the host-wide backoff (a 429/503 holds every new request to the origin until its
/// wait ends; a later one extends the hold to the later end, never the sum). An actor: retrievals
/// ask it before each attempt and tell it how the attempt went. Bounded: at most `maxOrigins`
/// origins are remembered at once (counts of origins that answered are dropped).
public actor OriginGate {
    /// `downAfter`: connect-level failures in a row that mark an origin down (0: never);
    /// `downTTL`: seconds a mark lasts; `ignoresMarks`: marks found in the cache directory are
    /// cleared rather than obeyed (`--force-refresh`).
    public struct Policy: Sendable, Hashable {
        public var downAfter = 4
        public var downTTL: Double = 600
        public var ignoresMarks = false
        public init(downAfter: Int = 4, downTTL: Double = 600, ignoresMarks: Bool = false) {
            self.downAfter = downAfter
            self.downTTL = downTTL
            self.ignoresMarks = ignoresMarks
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
    private var failures: [String: Int] = [:]
    private var down: [String: HostDownMarks.Mark] = [:]
    /// Holds by origin: until when (monotonic seconds).
    private var holds: [String: Double] = [:]
    private let now: @Sendable () -> Double
    private let clock: @Sendable () -> Double

    public init(policy: Policy, marks: HostDownMarks?, now: @escaping @Sendable () -> Double = { FileSystem.now() },
                monotonic: @escaping @Sendable () -> Double = { FileSystem.monotonic() }) {
        self.policy = policy
        self.marks = marks
        self.now = now
        self.clock = monotonic
    }

    /// Before an attempt to `origin`.
    public func admit(_ origin: String) -> Admission {
        if let mark = downMark(origin) { return .down(.hostDown(OriginGate.message(mark))) }
        if let until = holds[origin] {
            let left = until - clock()
            if left > 0 { return .wait(left) }
            holds[origin] = nil
        }
        return .go
    }

    /// After an attempt to `origin`: `error` nil when it answered (any response, an image or not).
    public func record(_ origin: String, error: FetchError?) {
        guard let error else { return reached(origin) }
        switch error.cause {
        case .dns, .refused, .connectTimeout: failed(origin, error)
        case .cancelled, .constrained, .deniedAddress, .hostDown, .invalidSource: break
        default: reached(origin)
        }
    }

    /// A 429/503 of `origin` asked for `seconds`: new requests to it wait until then (the later
    /// end when it is held already).
    public func hold(_ origin: String, for seconds: Double) {
        guard seconds > 0, seconds.isFinite else { return }
        let until = clock() + seconds
        if holds[origin].map({ until > $0 }) ?? (holds.count < OriginGate.maxOrigins) { holds[origin] = until }
    }

    private func downMark(_ origin: String) -> HostDownMarks.Mark? {
        if let mark = down[origin] {
            if mark.until > now() { return mark }
            down[origin] = nil
        }
        guard let marks else { return nil }
        if policy.ignoresMarks {
            marks.clear(origin)
            return nil
        }
        guard policy.downAfter > 0 else { return nil }
        guard let mark = marks.mark(of: origin, now: now()) else { return nil }
        if down.count < OriginGate.maxOrigins { down[origin] = mark }
        return mark
    }

    private func reached(_ origin: String) {
        let wasFailing = failures.removeValue(forKey: origin) != nil
        if down.removeValue(forKey: origin) != nil || wasFailing || policy.ignoresMarks { marks?.clear(origin) }
    }

    private func failed(_ origin: String, _ error: FetchError) {
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
        if policy.downTTL > 0 { marks?.write(mark) }
    }

    /// `ORIGIN is marked down since TIME (REASON), until TIME: not tried`.
    static func message(_ mark: HostDownMarks.Mark) -> String {
        "\(mark.origin) is marked down since \(HTTPDate.iso8601(mark.since)) (\(mark.reason)), until \(HTTPDate.iso8601(mark.until)): not tried"
    }
}
