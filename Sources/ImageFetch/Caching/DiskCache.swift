#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A directory of entries: `v1/<2 hex>/<key>.<ext>` holds the image, `<key>.meta` its metadata.
///
/// - Writes go to a temporary file in `v1/tmp` and are renamed into place; the image first, then its
///   metadata, whose rename is the commit. Every read checks the image against the size and XXH64
///   checksum in the metadata: a torn pair (two writers, a power loss before the page cache reached the
///   disk, a disk error) is a miss, never served. That check, not fsync, is what makes entries safe, so
///   stores do not fsync by default (`synchronous: true` adds it, for filesystems without ordering).
/// - Several processes may share the directory (also on a network filesystem): entries are committed
///   by atomic renames; an advisory lock (`v1/lock`) keeps two evictions from working at once and a
///   store's commit (its two renames) from interleaving with an eviction's removal of the same key.
/// - Nothing in the directory is trusted: keys are checked against their file names, numbers are
///   bounded, no symbolic link inside it is followed (every file is reached relative to a directory
///   descriptor, see `DirectoryHandle`), and only files named as entries (`CacheLayout`) are removed.
/// - Last access is the image file's mtime, set at most once a minute per entry on a hit.
/// - `sizeLimit` is a hard limit: a store that takes the cache over it evicts at once, by-product
///   originals first (`CacheEntry.Kept`), least recently used first, a few entries from the
///   candidate list (`DiskCache+Eviction.swift`). The running total lives in `v1/usage`.
public final class DiskCache: ImageCaching, Sendable {
    /// The cache directory given by the user.
    public let directory: String
    /// `directory/v1`: the layout version.
    public let root: String
    /// Hard limit of the cache directory in bytes; nil = unlimited. Default 1 GiB.
    public let sizeLimit: Int64?
    /// Whether stores fsync before renaming. Default off: checksums already turn a torn entry into a miss.
    public let synchronous: Bool
    /// The keyed digest of credentials in sources; its secret is `v1/secret` (0600), made on first use.
    public let credentials: CredentialDigest

    /// A store that finds the candidate list used up does not scan the cache itself: it evicts from
    /// a sample of shards (`DiskCache+Sampling.swift`) and raises `scanWanted`, so that the caller
    /// (`get`, a short process) starts the scan in the background. Default off (a scan in the store).
    public let deferredScans: Bool
    /// Set when a store evicted from a sample because the candidate list needs a new scan.
    public let scanWanted = Atomic<Bool>(false)
    /// Set while a store of this process writes the candidate list (`evictIncrementally`).
    let listing = Atomic<Bool>(false)
    /// Evictions of this process not yet added to `v1/evictions` (`DiskCache+EvictionTotals.swift`).
    let pendingEvictions = Atomic<Int>(0)
    let pendingEvictedBytes = Atomic<Int64>(0)

    public init(directory: String, sizeLimit: Int64? = 1 << 30, synchronous: Bool = false, deferredScans: Bool = false) {
        self.deferredScans = deferredScans
        var dir = directory
        while dir.count > 1 && dir.hasSuffix("/") { dir.removeLast() }
        self.directory = dir
        self.root = dir + "/v1"
        self.sizeLimit = sizeLimit
        self.synchronous = synchronous
        self.credentials = CredentialDigest(secretFile: dir + "/v1/secret")
    }

    /// Set once this process has checked (and when needed written) the directory's tag.
    let tagChecked = Atomic<Bool>(false)

    func shardName(_ key: String) -> String { String(key.prefix(2)) }
    func shardDirectory(_ key: String) -> String { root + "/" + shardName(key) }
    public func metaPath(_ key: String) -> String { shardDirectory(key) + "/" + key + ".meta" }
    public func dataPath(_ key: String, format: String) -> String { shardDirectory(key) + "/" + dataName(key, format: format) }
    func dataPath(_ entry: CacheEntry) -> String { dataPath(entry.key, format: entry.format) }
    func dataName(_ key: String, format: String) -> String { key + "." + (ImageFormat(name: format)?.fileExtension ?? "img") }
    func dataName(_ entry: CacheEntry) -> String { dataName(entry.key, format: entry.format) }

    // MARK: - lookup

    public func lookup(_ key: CacheKey) -> CachedImage? { lookup(rawKey: key.rawValue) }

    func lookup(rawKey key: String) -> CachedImage? {
        guard CacheLayout.isKey(key), let shard = openShard(of: key),
              let (metaBytes, _) = try? shard.read(key + ".meta"),
              let entry = CacheEntry.decode(metaBytes), entry.key == key else { return nil }
        let name = dataName(entry)
        guard let (bytes, status) = try? shard.read(name) else { return nil }
        guard Int64(bytes.count) == entry.bytes, Checksum.string(bytes) == entry.checksum else {
            // Never served. Removed only if it is still the same metadata (another writer may have replaced it).
            if let again = try? shard.read(key + ".meta").bytes, again == metaBytes { remove(entry, in: shard) }
            return nil
        }
        var found = entry
        let now = FileSystem.now()
        found.lastAccess = status.modified
        if now - status.modified > 60 { shard.touch(name, at: now); found.lastAccess = now }
        return CachedImage(entry: found, bytes: bytes, path: dataPath(entry))
    }

    /// The metadata of an entry without reading its image (for listing); nil when absent or torn.
    public func entry(forKey key: String) -> CacheEntry? {
        guard CacheLayout.isKey(key), let shard = openShard(of: key),
              let (bytes, _) = try? shard.read(key + ".meta"),
              var entry = CacheEntry.decode(bytes), entry.key == key else { return nil }
        if let status = shard.status(dataName(entry)) { entry.lastAccess = status.modified }
        return entry
    }

    /// The shard directory of `key`, never through a link; nil when it (or `v1`) is absent or unusable.
    func openShard(of key: String) -> DirectoryHandle? {
        guard let version = try? openVersion() else { return nil }
        return try? version.subdirectory(shardName(key))
    }

    // MARK: - store

    @discardableResult
    public func store(_ bytes: [UInt8], entry: CacheEntry) throws(FetchError) -> String? {
        try storeReporting(bytes, entry: entry).path
    }

    public func storeReporting(_ bytes: [UInt8], entry: CacheEntry) throws(FetchError) -> CacheStore {
        var entry = entry
        entry.bytes = Int64(bytes.count)
        guard CacheLayout.isKey(entry.key) else { throw .cacheUnavailable("not a cache key: \(entry.key)") }
        // An entry that cannot fit even in an empty cache is not stored (it would evict everything).
        if let sizeLimit, entry.footprint > sizeLimit { return CacheStore(path: nil) }
        if entry.checksum.isEmpty { entry.checksum = Checksum.string(bytes) }
        let meta = entry.encoded()
        // A by-product's image lacks the owner-write bit: the eviction scan reads names and stat only.
        let mode: mode_t = entry.kept == .byproduct ? 0o444 : 0o644
        var reserved: (fits: Bool, evicted: CacheRemoval)?
        var counted = false
        let version = try write { (version, temporary) throws(FileSystem.Failure) in
            let shard = try version.subdirectory(shardName(entry.key), create: true)
            let staged = try shard.stage(bytes, in: temporary, sync: synchronous, mode: mode)
            let stagedMeta: DirectoryHandle.Staged
            do throws(FileSystem.Failure) { stagedMeta = try shard.stage(meta, in: temporary, sync: synchronous) } catch {
                temporary.discard(staged)
                throw error
            }
            // Counted, then committed, in one hold of the cache's lock, which every eviction holds
            // while it removes an entry: a removal (metadata, then images) never runs between the
            // two renames of a store of the same key, which would leave the new metadata without
            // its image. Counted before the commit: a process killed in between leaves the total
            // too high (the next store evicts a little early), never too low. Counted after its
            // temporary files exist, so that a scan sees it in flight (`rebuildCandidates`).
            let failure: FileSystem.Failure? = version.withLock(CacheLayout.lockFile) {
                if !counted {
                    counted = true
                    reserved = reserveHoldingLock(for: entry, in: version)
                }
                return shard.commit(image: staged, as: dataName(entry), meta: stagedMeta, as: entry.key + ".meta", from: temporary)
            }
            if let failure { throw failure }
        }
        guard let limit = sizeLimit, let reserved else { return CacheStore(path: dataPath(entry)) }
        var evicted = reserved.evicted
        if !reserved.fits { evicted.add(evictIncrementally(toFit: limit, keeping: entry.key, in: version)) }
        return CacheStore(path: dataPath(entry), evicted: evicted)
    }

    public func promote(_ entry: CacheEntry) {
        guard entry.kept == .byproduct, CacheLayout.isKey(entry.key), let shard = openShard(of: entry.key) else { return }
        var asked = entry
        asked.kept = .requested
        // The image first: a crash between the two leaves an entry the scan already treats as asked for.
        shard.makeOwnerWritable(dataName(entry))
        try? refresh(asked)
    }

    public func refresh(_ entry: CacheEntry) throws(FetchError) {
        guard CacheLayout.isKey(entry.key) else { throw .cacheUnavailable("not a cache key: \(entry.key)") }
        let meta = entry.encoded()
        _ = try write { (version, temporary) throws(FileSystem.Failure) in
            let shard = try version.subdirectory(shardName(entry.key), create: true)
            let staged = try shard.stage(meta, in: temporary, sync: synchronous)
            // Under the lock, as a store's commit: never between an eviction's two removals; and
            // only while the image is there (an entry evicted meanwhile stays gone, not metadata alone).
            let failure: FileSystem.Failure? = version.withLock(CacheLayout.lockFile) {
                guard shard.status(dataName(entry))?.isRegular == true else {
                    temporary.discard(staged)
                    return nil
                }
                return shard.commit(staged, from: temporary, to: entry.key + ".meta")
                    ? nil : FileSystem.Failure(errno: errno, path: shard.child(entry.key + ".meta"), operation: "rename to")
            }
            if let failure { throw failure }
        }
    }

    /// Runs `body` with `v1` and `v1/tmp` (made when missing, never through a link) and returns `v1`.
    /// A directory removed under it by a concurrent `cache clear` (ENOENT) is made again, up to
    /// three times (clears in a loop can hit one store twice).
    func write(_ body: (DirectoryHandle, DirectoryHandle) throws(FileSystem.Failure) -> Void) throws(FetchError) -> DirectoryHandle {
        var retries = 0
        while true {
            do {
                let version = try createVersion()
                let temporary = try version.subdirectory(CacheLayout.temporaryDirectory, create: true)
                try body(version, temporary)
                return version
            } catch {
                if error.errno == ENOENT && retries < 3 { retries += 1; continue }
                throw .cacheUnavailable("cannot write to the cache directory \(directory): \(error.message)")
            }
        }
    }

    // MARK: - remove

    /// Removes an entry: its metadata first (the entry is gone from then on), then its image.
    @discardableResult
    public func remove(_ entry: CacheEntry) -> Bool {
        guard CacheLayout.isKey(entry.key), let shard = openShard(of: entry.key) else { return false }
        return remove(entry, in: shard)
    }

    /// Removes `<key>.meta` and `<key>.<ext>` from `shard` (the key was checked to be 64 hex digits).
    @discardableResult
    func remove(_ entry: CacheEntry, in shard: DirectoryHandle) -> Bool {
        guard CacheLayout.isKey(entry.key) else { return false }
        let removed = shard.remove(entry.key + ".meta")
        shard.remove(dataName(entry))
        if removed { removeLowDataIndex(of: entry) }
        return removed
    }
}
