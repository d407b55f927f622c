/// A retry as it is decided, in curl's spirit ("Will retry in 1 second. 3 retries left."): the
/// source, the cause, the wait and the retries left. The pipeline posts it (`PipelineActivity`)
/// and adds it to the result's `retries`; the caller shows it.
public struct RetryNotice: Sendable, Equatable {
    public var source: String
    /// What failed: the error of the attempt (an HTTP status, a timeout, a refused connection).
    public var cause: FetchError
    /// Seconds before the next attempt.
    public var wait: Double
    /// Retries left, the one announced included, as curl counts them (`--retry 3`: 3, then 2, then
    /// 1); `--retry-max-time` may end them sooner.
    public var retriesLeft: Int
    /// Every new request to the source's origin waits as long (a 429 or 503: `OriginGate`'s hold).
    public var hostWaits = false

    public init(source: String, cause: FetchError, wait: Double, retriesLeft: Int) {
        self.source = source
        self.cause = cause
        self.wait = wait
        self.retriesLeft = retriesLeft
    }

    /// `SOURCE: CAUSE; will retry in 1 s, 3 retries left`.
    public var message: String {
        let left = retriesLeft == 1 ? "1 retry left" : "\(max(0, retriesLeft)) retries left"
        let host = hostWaits ? "; the host's other requests wait too" : ""
        return cause.message(naming: source) + "; will retry in " + FetchError.seconds(wait) + ", " + left + host
    }
}
