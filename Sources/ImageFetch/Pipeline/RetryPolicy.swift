/// When and how long to wait before trying a source again.
/// Defaults: no retries (`--retry 0`, as curl), 1 s base delay, doubling with equal jitter, capped at
/// 30 s per wait; attempts at least the base delay apart (even after `Retry-After: 0`); no retry
/// whose wait would end more than 300 s after the retrieval started.
public struct RetryPolicy: Sendable, Hashable {
    /// Retries after the first attempt (so at most `maxRetries + 1` attempts per source).
    public var maxRetries: Int = 0
    /// The first backoff, in seconds; each retry doubles it. Also the shortest wait before any
    /// retry, whatever `Retry-After` says (a server answering `Retry-After: 0` is not hammered).
    public var baseDelay: Double = 1
    /// No single computed wait is longer than this, in seconds (a `Retry-After` is capped by `maxTime` only).
    public var maxDelay: Double = 30
    /// Stop retrying when the next wait would end later than this many seconds after the start; nil = no limit.
    public var maxTime: Double? = RetryPolicy.defaultMaxTime

    /// The default of `maxTime`: a few minutes.
    public static let defaultMaxTime: Double = 300
    /// The longest `Retry-After` honoured when `maxTime` is nil.
    public static let longestRetryAfter: Double = 3600

    public init(maxRetries: Int = 0, baseDelay: Double = 1, maxDelay: Double = 30, maxTime: Double? = RetryPolicy.defaultMaxTime) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxTime = maxTime
    }

    /// What to do after a failed attempt.
    public enum Decision: Sendable, Equatable {
        /// Try again after this many seconds.
        case retry(after: Double)
        /// Not retryable, no retries left, or the retry time is spent: the failure stands.
        case giveUp
        /// The server's `Retry-After` (seconds) would end beyond `maxTime`: fail now rather than wait.
        case waitBeyondLimit(Double)
    }

    /// The decision before retry number `retry` (1-based) after `error`. `elapsed` is the time since
    /// the retrieval started; `random` returns a value in 0..<1 (jitter).
    public func decision(beforeRetry retry: Int, after error: FetchError, elapsed: Double,
                         random: () -> Double = { Double.random(in: 0..<1) }) -> Decision {
        guard error.isRetryable, retry <= maxRetries else { return .giveUp }
        let floor = max(0, baseDelay)
        var wait: Double
        if case .httpStatus(_, let retryAfter?) = error {
            // Honoured as is, but never sooner than the base delay; beyond --retry-max-time the retry
            // is refused at once (below), and without one no wait is longer than an hour (a hostile
            // "Retry-After: 99999999" must not hang us).
            if let maxTime, elapsed + retryAfter > maxTime { return .waitBeyondLimit(retryAfter) }
            wait = max(floor, maxTime == nil ? min(retryAfter, RetryPolicy.longestRetryAfter) : retryAfter)
        } else {
            let exponential = min(maxDelay, baseDelay * Double(1 << min(retry - 1, 30)))
            // "Equal jitter": half fixed, half random, so waits never collapse to zero.
            wait = exponential / 2 + exponential / 2 * random()
        }
        if let maxTime, elapsed + wait > maxTime { return .giveUp }
        return .retry(after: max(0, wait))
    }

    /// The wait before retry number `retry` (1-based) after `error`, or nil when it must not be retried.
    public func delay(beforeRetry retry: Int, after error: FetchError, elapsed: Double,
                      random: () -> Double = { Double.random(in: 0..<1) }) -> Double? {
        if case .retry(let wait) = decision(beforeRetry: retry, after: error, elapsed: elapsed, random: random) { return wait }
        return nil
    }
}
