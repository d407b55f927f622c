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
/// - Several processes may share the directory (also on a network filesystem): correctness rests on
///   atomic renames only; an advisory lock just keeps two evictions from working at once.
/// - Last access is the image file's mtime, set at most once a minute per entry on a hit.
/// - `sizeLimit` is a hard limit: a store that takes the cache over it evicts least recently used
///   entries at once. The running total lives in `v1/usage` (recomputed exactly by every full scan).
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

    public init(directory: String, sizeLimit: Int64? = 1 << 30, synchronous: Bool = false) {
        var dir = directory
        while dir.count > 1 && dir.hasSuffix("/") { dir.removeLast() }
        self.directory = dir
        self.root = dir + "/v1"
        self.sizeLimit = sizeLimit
        self.synchronous = synchronous
        self.credentials = CredentialDigest(secretFile: dir + "/v1/secret")
    }

    var temporaryDirectory: String { root + "/tmp" }

    func shardDirectory(_ key: String) -> String { root + "/" + String(key.prefix(2)) }
    public func metaPath(_ key: String) -> String { shardDirectory(key) + "/" + key + ".meta" }
    public func dataPath(_ key: String, format: String) -> String {
        shardDirectory(key) + "/" + key + "." + (ImageFormat(name: format)?.fileExtension ?? "img")
    }
    func dataPath(_ entry: CacheEntry) -> String { dataPath(entry.key, format: entry.format) }

    // MARK: - lookup

    public func lookup(_ key: CacheKey) -> CachedImage? { lookup(rawKey: key.rawValue) }

    func lookup(rawKey key: String) -> CachedImage? {
        guard let metaBytes = try? FileSystem.read(metaPath(key)),
              let entry = CacheEntry.decode(metaBytes), entry.key == key else { return nil }
        let path = dataPath(entry)
        guard let (bytes, status) = try? FileSystem.readWithStatus(path) else { return nil }
        guard Int64(bytes.count) == entry.bytes, Checksum.string(bytes) == entry.checksum else {
            // Never served. Removed only if it is still the same metadata (another writer may have replaced it).
            if let again = try? FileSystem.read(metaPath(key)), again == metaBytes { remove(entry) }
            return nil
        }
        var found = entry
        let now = FileSystem.now()
        if let status {
            found.lastAccess = status.modified
            if now - status.modified > 60 { FileSystem.touch(path, at: now); found.lastAccess = now }
        }
        return CachedImage(entry: found, bytes: bytes, path: path)
    }

    /// The metadata of an entry without reading its image (for listing); nil when absent or torn.
    public func entry(forKey key: String) -> CacheEntry? {
        guard let bytes = try? FileSystem.read(metaPath(key)), var entry = CacheEntry.decode(bytes) else { return nil }
        if let status = FileSystem.status(dataPath(entry)) { entry.lastAccess = status.modified }
        return entry
    }

    // MARK: - store

    @discardableResult
    public func store(_ bytes: [UInt8], entry: CacheEntry) throws(FetchError) -> String? {
        var entry = entry
        entry.bytes = Int64(bytes.count)
        // An entry that cannot fit even in an empty cache is not stored (it would evict everything).
        if let sizeLimit, entry.footprint > sizeLimit { return nil }
        try prepareDirectories(for: entry.key)
        if entry.checksum.isEmpty { entry.checksum = Checksum.string(bytes) }
        let path = dataPath(entry)
        let meta = entry.encoded()
        do {
            try FileSystem.writeAtomically(bytes, to: path, temporaryDirectory: temporaryDirectory, sync: synchronous)
            try FileSystem.writeAtomically(meta, to: metaPath(entry.key), temporaryDirectory: temporaryDirectory, sync: synchronous)
        } catch {
            throw .cacheUnavailable("cannot write to the cache directory \(directory): \(error.message)")
        }
        recordWrite(entry.footprint, keeping: entry.key)
        return path
    }

    public func refresh(_ entry: CacheEntry) throws(FetchError) {
        do {
            try FileSystem.writeAtomically(entry.encoded(), to: metaPath(entry.key), temporaryDirectory: temporaryDirectory, sync: synchronous)
        } catch {
            throw .cacheUnavailable("cannot write to the cache directory \(directory): \(error.message)")
        }
    }

    func prepareDirectories(for key: String) throws(FetchError) {
        do {
            if !FileSystem.isDirectory(temporaryDirectory) { try FileSystem.makeDirectories(temporaryDirectory) }
            let shard = shardDirectory(key)
            if !FileSystem.isDirectory(shard) { try FileSystem.makeDirectories(shard) }
        } catch {
            throw .cacheUnavailable("cannot use the cache directory \(directory): \(error.message)")
        }
    }

    // MARK: - remove

    /// Removes an entry: its metadata first (the entry is gone from then on), then its image.
    @discardableResult
    public func remove(_ entry: CacheEntry) -> Bool {
        let removed = FileSystem.remove(metaPath(entry.key))
        FileSystem.remove(dataPath(entry))
        return removed
    }
}
