/// How the cache took part in a result (`cache` in `--json`).
public enum CacheState: String, Sendable {
    /// A fresh entry, no network access.
    case hit
    /// Downloaded (or read from a file / data: URL) and processed.
    case miss
    /// A stale entry confirmed by a 304: expiry refreshed, bytes not downloaded again.
    case revalidated
    /// An expired entry served because the network may not or could not be used, or within a
    /// stale-while-revalidate / stale-if-error window (see `staleReason`).
    case stale
    /// Processed from the cached original bytes, without the network.
    case derived
    /// A fresh entry of the remote cache tier, verified and stored locally; no origin request.
    case remote
}

/// The outcome of one successful retrieval, with everything the CLI reports.
public struct ImageResult: Sendable {
    /// What was asked for.
    public var originalSource: Source
    /// What was actually loaded (the low-data fallback or an alternative source, when used).
    public var source: Source
    public var key: CacheKey
    /// The cache file holding the image; nil when the cache could not be written (see `cacheError`).
    public var path: String?
    public var cache: CacheState
    /// True when the low-data fallback was used.
    public var lowData: Bool
    public var image: ProcessedImage
    /// Load attempts made, over all sources (0 for a cache hit).
    public var attempts: Int
    /// Bytes that crossed the network.
    public var downloadedBytes: Int64
    /// Wall time of the retrieval in milliseconds.
    public var milliseconds: Double
    /// Non-fatal problems (e.g. a stale entry served because the network was unreachable).
    public var warnings: [String]
    /// Set when the image was retrieved but could not be stored (exit code 4 in the CLI).
    public var cacheError: FetchError?
    /// Why a stale entry was served (`cache` is `stale`): `offline`, `stale-while-revalidate`,
    /// `stale-if-error`, `network unreachable`.
    public var staleReason: String? = nil
    /// Served within a stale-while-revalidate window: `ImagePipeline.revalidate` should follow.
    public var needsRevalidation = false
    /// The retries made on the way, as they were announced (`PipelineActivity.takeNotices`).
    public var retries: [RetryNotice] = []
    /// What the cache's size limit evicted to make room for this result's entries (none for a hit).
    public var evicted = CacheRemoval()
    /// How much of the source was read, and how the output was fitted (`SourceReading`).
    public var reading = SourceReading()
    /// Where its time went, by phase (`timing` in a record); all 0 for a hit.
    public var timing = Timing()
    /// The source as loaded, before processing: SHA-256 (hex) of its bytes as downloaded (for a hit,
    /// as stored when the entry was made) and its size; nil when not known (an entry of an older
    /// version; the hash of a partial read, which never saw every byte).
    public var sourceSHA256: String? = nil
    public var sourceWidth: Int? = nil
    public var sourceHeight: Int? = nil
    /// Bytes of the source's original stored beside the output by this retrieval (`keepOriginal`,
    /// a by-product entry); 0 when none was stored.
    public var keptOriginalBytes: Int64 = 0
}

extension ImageResult {
    /// A result of `source` as loaded by itself; the pipeline fills in attempts, time and the rest.
    init(source: Source, key: CacheKey, path: String? = nil, cache: CacheState, image: ProcessedImage, downloadedBytes: Int64 = 0) {
        self.init(originalSource: source, source: source, key: key, path: path, cache: cache, lowData: false, image: image,
                  attempts: 0, downloadedBytes: downloadedBytes, milliseconds: 0,
                  warnings: image.warnings.map { "\(source): \($0)" }, cacheError: nil)
    }
}

/// A failed retrieval: the error and the attempts made before giving up.
public struct RetrievalFailure: Error, Sendable {
    public var error: FetchError
    public var attempts: Int
    public var milliseconds: Double
    /// nil when the key could not be made (the cache's credential secret is unusable).
    public var key: CacheKey?
    /// Non-fatal problems met on the way (the remote cache tier's: a store that failed, an object
    /// that did not verify), as in `ImageResult.warnings`.
    public var warnings: [String] = []
    /// The retries made before giving up, as they were announced.
    public var retries: [RetryNotice] = []
    /// Where its time went, by phase: the transfers' (a failed decode's time is not counted).
    public var timing = Timing()
    /// The failure is a stored error response's, fresh in the cache: no request was made.
    public var cached = false

    public init(error: FetchError, attempts: Int, milliseconds: Double, key: CacheKey?) {
        self.error = error
        self.attempts = attempts
        self.milliseconds = milliseconds
        self.key = key
    }
}
