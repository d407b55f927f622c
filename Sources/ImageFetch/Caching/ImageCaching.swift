/// A verified cache entry: its metadata, its bytes (checksum checked), and the file they live in.
public struct CachedImage: Sendable {
    public var entry: CacheEntry
    public var bytes: [UInt8]
    public var path: String
}

/// The cache seam of the pipeline. `DiskCache` is the one default implementation; tests may use fakes.
public protocol ImageCaching: Sendable {
    /// The entry for `key` with bytes that match their checksum, fresh or not; nil on a miss.
    /// An entry that fails its checksum is removed and reported as a miss, never served.
    func lookup(_ key: CacheKey) -> CachedImage?
    /// Stores bytes and metadata atomically (the metadata's rename commits the entry) and returns the
    /// path of the image file, or nil when the entry alone is larger than the cache's size limit (it
    /// is then not stored at all). Throws `.cacheUnavailable` when the directory cannot be used.
    @discardableResult
    func store(_ bytes: [UInt8], entry: CacheEntry) throws(FetchError) -> String?
    /// `store`, telling what the size limit evicted to make room (`ImageResult.evicted`).
    func storeReporting(_ bytes: [UInt8], entry: CacheEntry) throws(FetchError) -> CacheStore
    /// An entry kept as a by-product that is now asked for as it is becomes an output asked for
    /// (`CacheEntry.Kept.requested`): eviction then no longer takes it first.
    func promote(_ entry: CacheEntry)
    /// Evicts until the cache is within its size limit, when it is not: run before a command ends.
    @discardableResult
    func fitLimit() -> CacheRemoval
    /// After a 304: a new expiry (and validators when the server sent new ones), without rewriting bytes.
    func refresh(_ entry: CacheEntry) throws(FetchError)
    /// Keys the credentials of sources that carry them (see `CredentialDigest`). Default: this
    /// process's ephemeral secret, right for a cache that keeps nothing on disk.
    var credentials: CredentialDigest { get }
    /// Where a download of the entry `key` that ends early is kept to be resumed (`PartialSlot`);
    /// nil (the default) for a cache that keeps no partial downloads.
    func partialSlot(for key: CacheKey) -> PartialSlot?
    /// Records that the entry `key`, just stored from the low-data source `source` with its
    /// `lowDataOf` set to `original`, serves the request whose output key is `original` (an offline
    /// request finds it without the low-data options). Default: nothing.
    func indexLowData(_ key: CacheKey, source: String, for original: CacheKey)
    /// The low-data entry recorded for `original` (`indexLowData`), verified and still naming
    /// `original`, and its low-data source; nil (the default) when none.
    func lowDataEntry(for original: CacheKey) -> (cached: CachedImage, source: String)?
    /// The scan of eviction candidates a store of this process deferred (`deferredScans`), now
    /// claimed for the caller to run in another process (`imgfetch cache scan`); nil (the
    /// default) when none is wanted or one runs already.
    func claimDeferredScan() -> DeferredScan?
}

/// A cache's deferred scan of eviction candidates, claimed (`ImageCaching.claimDeferredScan`):
/// the cache directory and size limit the scan is run with.
public struct DeferredScan: Sendable, Equatable {
    public var directory: String
    public var sizeLimit: Int64
}

extension ImageCaching {
    public var credentials: CredentialDigest { .ephemeral }
    public func partialSlot(for key: CacheKey) -> PartialSlot? { nil }
    public func indexLowData(_ key: CacheKey, source: String, for original: CacheKey) {}
    public func lowDataEntry(for original: CacheKey) -> (cached: CachedImage, source: String)? { nil }
    public func storeReporting(_ bytes: [UInt8], entry: CacheEntry) throws(FetchError) -> CacheStore {
        CacheStore(path: try store(bytes, entry: entry))
    }
    public func promote(_ entry: CacheEntry) {}
    public func claimDeferredScan() -> DeferredScan? { nil }
    @discardableResult
    public func fitLimit() -> CacheRemoval { CacheRemoval() }
}

/// What one store did: the image file (nil when the entry alone is larger than the size limit) and
/// the entries the limit evicted to make room for it.
public struct CacheStore: Sendable {
    public var path: String?
    public var evicted: CacheRemoval

    public init(path: String?, evicted: CacheRemoval = CacheRemoval()) {
        self.path = path
        self.evicted = evicted
    }
}
