/// One thing to fetch: a source, how to process it, and the options that steer the retrieval.
/// Options are data (Kingfisher's style): nothing in the pipeline reads flags from anywhere else.
/// Its synthesised `Hashable` is the retrieval key (`RequestPlan.retrievalKey`): two requests share
/// one retrieval only when every stored property is equal.
public struct ImageRequest: Sendable, Hashable {
    public var source: Source
    public var processing: Processing
    /// Loaded instead of `source` when the network is constrained (low-data mode).
    public var lowDataSource: Source?
    /// Tried in order when the current source fails (after its retries).
    public var alternativeSources: [Source]
    public var options: FetchOptions
    /// How http(s) requests are made (headers, credentials, TLS, proxy, speed): travels whole to
    /// the loader, and keys the cache entry and the shared download. Default: none of them.
    public var network: NetworkOptions

    public init(source: Source, processing: Processing = .original, lowDataSource: Source? = nil,
                alternativeSources: [Source] = [], options: FetchOptions = FetchOptions(),
                network: NetworkOptions = NetworkOptions()) {
        self.network = network
        self.source = source
        self.processing = processing
        self.lowDataSource = lowDataSource
        self.alternativeSources = alternativeSources
        self.options = options
    }
}

/// How the cache may be used for one request.
public enum CachePolicy: Sendable, Hashable {
    /// Fresh hits are served; stale entries are revalidated; misses download. (Default.)
    case normal
    /// Skip the lookup; always download (the result still replaces the entry).
    case forceRefresh
    /// Never touch the network; serve only fresh entries, else `notCached`.
    case cacheOnly
    /// Never touch the network; serve entries even when expired, else `notCached`.
    case offline
}

/// When a progressive JPEG's download may stop once its scans serve the thumbnail.
public enum PartialProgressive: Sendable, Hashable {
    /// In low-data mode only (the default).
    case lowData
    /// In any mode (`--partial-progressive`).
    case always
    /// Never (`--no-partial-progressive`).
    case never
}

extension CachePolicy {
    /// `cacheOnly` and `offline`: the network is never used.
    public var avoidsNetwork: Bool { self == .cacheOnly || self == .offline }
}

/// Limits, timeouts, retry policy and cache behaviour of one request. Defaults are safe.
public struct FetchOptions: Sendable, Hashable {
    /// Refuse downloads larger than this many bytes. Default 100 MiB.
    public var maxBytes: Int64 = 100 << 20
    /// Refuse images with more pixels than this (checked from the header, before any decode). Default 100 M.
    public var maxPixels: Int64 = 100_000_000
    /// Connect timeout in seconds. Default 10.
    public var connectTimeout: Double = 10
    /// Total time of one request in seconds. Default 60.
    public var timeout: Double = 60
    public var retry = RetryPolicy()
    public var cachePolicy: CachePolicy = .normal
    /// Expiry of entries whose response sends no caching headers, in seconds. Default 7 days.
    public var defaultTTL: Double = 7 * 86_400
    /// The heuristic lifetime of a 404 or 410 that has neither explicit freshness nor a
    /// `Last-Modified` (RFC 9111 §4.2.2), in seconds; 0 stores none. Default 1 day.
    public var failureTTL: Double = 86_400
    /// Ask again for what a stored failure answers (`--retry-failed`). Default false.
    public var retryFailed = false
    /// Keep the original bytes beside processed variants, so new variants derive without the network.
    public var keepOriginal = true
    /// Serve a stale entry within its `stale-while-revalidate` window (the result then asks for a
    /// revalidation). Default true; `ImagePipeline.revalidate` turns it off.
    public var serveStaleWhileRevalidating = true
    /// Redirects followed at most. Default 5.
    public var maxRedirects = 5
    /// Placeholders to hand out with the image (`--placeholder`): computed once, kept in the entry's
    /// metadata. Not part of the cache key (the same image). Default none.
    public var placeholders: Set<PlaceholderKind> = []
    /// Send `Save-Data: on` to origins in low-data mode (`--no-save-data`: false). Not part of the
    /// cache key: a response that depends on it says `Vary: Save-Data`. Default true.
    public var saveData = true
    /// When a progressive JPEG is read only as far as its thumbnail needs (`--partial-progressive`,
    /// `--no-partial-progressive`). Not part of the cache key: a partial result has its own key.
    public var partialProgressive = PartialProgressive.lowData

    public init() {}
}
