/// When and how long to wait before trying a source again.
/// Defaults: no retries (`--retry 0`, as curl), 1 s base delay, doubling with full jitter, capped at 30 s per wait.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt (so at most `maxRetries + 1` attempts per source).
    public var maxRetries: Int = 0
    /// The first backoff, in seconds; each retry doubles it.
    public var baseDelay: Double = 1
    /// No single wait is longer than this, in seconds (a `Retry-After` is capped by `maxTime` only).
    public var maxDelay: Double = 30
    /// Stop retrying when the next wait would end later than this many seconds after the start; nil = no limit.
    public var maxTime: Double? = nil

    /// The longest `Retry-After` honoured when no `maxTime` is set.
    public static let longestRetryAfter: Double = 3600

    public init(maxRetries: Int = 0, baseDelay: Double = 1, maxDelay: Double = 30, maxTime: Double? = nil) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxTime = maxTime
    }

    /// The wait before retry number `retry` (1-based) after `error`, or nil when it must not be retried.
    /// `elapsed` is the time since the retrieval started; `random` returns a value in 0..<1 (jitter).
    public func delay(beforeRetry retry: Int, after error: FetchError, elapsed: Double,
                      random: () -> Double = { Double.random(in: 0..<1) }) -> Double? {
        guard error.isRetryable, retry <= maxRetries else { return nil }
        var wait: Double
        if case .httpStatus(_, let retryAfter?) = error {
            // Honoured as is; beyond --retry-max-time the retry is given up (below), and without
            // one no wait is longer than an hour (a hostile "Retry-After: 99999999" must not hang us).
            wait = maxTime == nil ? min(retryAfter, RetryPolicy.longestRetryAfter) : retryAfter
        } else {
            let exponential = min(maxDelay, baseDelay * Double(1 << min(retry - 1, 30)))
            // "Equal jitter": half fixed, half random, so waits never collapse to zero.
            wait = exponential / 2 + exponential / 2 * random()
        }
        if let maxTime, elapsed + wait > maxTime { return nil }
        wait = max(0, wait)
        return wait
    }
}
