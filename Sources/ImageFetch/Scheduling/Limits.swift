/// Every admission limit of a run, in one value: how many transfers, to one host, how fast, how
/// many images processed and uploads sent at once. The CLI fills it once from its options; the
/// run (`FetchRun.init`) is the one place it is applied (the curl engine's caps, the tier's direct
/// reads, the rate limiter, the processing pool, the uploader, the retrievals a prefetch keeps in flight).
public struct Limits: Sendable, Hashable {
    /// libcurl transfers at once, the remote tier's included (`-j`); 0: no cap.
    public var transfers = 0
    /// Connections to one host at once (`--per-host`); 0: no cap.
    public var perHost = 0
    /// Requests started per second (`--rate`), evenly spaced; nil: no cap.
    public var rate: Double?
    /// Bytes per second of response data across every libcurl transfer of the run together, the
    /// origin's and the tier's (`--limit-rate-total`): one token bucket in the curl engine; nil: no cap.
    public var totalRate: Int64?
    /// Images decoded and encoded at once: default the number of cores.
    public var processing = ProcessingPool.coreCount
    /// Uploads to the remote tier at once.
    public var uploads = 4
    /// Uploads queued before a store waits for room (backpressure).
    public var uploadQueue = 64
    /// GETs of an http:// tier read directly at once (`RemoteStoreSettings.maxDirectReads`); 0: no bound.
    public var tierDirectReads = 0
    /// The dead-host breaker and its marks' lifetime (`--host-down-after`, `--host-down-ttl`).
    public var origins = OriginGate.Policy()

    public init() {}

    /// Retrievals a prefetch keeps in flight: `transfers` sent, as many queued in the engine so
    /// a finished transfer's slot starts the next one at once (a queued transfer's timeout starts
    /// only when it is sent), and room for the images being processed. A queued retrieval holds no
    /// memory until its transfer starts.
    public var retrievals: Int { 2 * max(1, transfers) + 2 * max(1, processing) }
}
