#if canImport(Glibc)
import Glibc
#endif

/// Listing, removal, pruning, verification and statistics: what the `cache` commands use.
extension DiskCache {
    /// Every committed entry (metadata that parses), with last access from the image's mtime.
    public func allEntries() -> [CacheEntry] {
        var entries: [CacheEntry] = []
        for shard in FileSystem.list(root) where shard.utf8.count == 2 {
            let dir = root + "/" + shard
            for name in FileSystem.list(dir) where name.hasSuffix(".meta") {
                guard let bytes = try? FileSystem.read(dir + "/" + name), var entry = CacheEntry.decode(bytes) else { continue }
                if let status = FileSystem.status(dataPath(entry)) { entry.lastAccess = status.modified }
                entries.append(entry)
            }
        }
        return entries
    }

    /// Entries whose source identity is `identity` (all variants of one source).
    public func entries(forIdentity identity: String) -> [CacheEntry] {
        allEntries().filter { $0.identity == identity }
    }

    /// Removes everything in the cache directory's layout (entries, temporary files, usage).
    public func clear() -> Int {
        let entries = FileSystem.withLock(lockPath) { () -> [CacheEntry] in
            let all = allEntries()
            for entry in all { remove(entry) }
            for shard in FileSystem.list(root) where shard.utf8.count == 2 {
                let dir = root + "/" + shard
                for name in FileSystem.list(dir) { FileSystem.remove(dir + "/" + name) }
                rmdir(dir)
            }
            return all
        }
        cleanTemporaryFiles(olderThan: 0)
        writeUsage(0)
        return entries.count
    }

    /// Removes temporary files left by interrupted writes (kill -9) older than `age` seconds.
    @discardableResult
    public func cleanTemporaryFiles(olderThan age: Double = 3600) -> Int {
        let now = FileSystem.now()
        var count = 0
        for name in FileSystem.list(temporaryDirectory) {
            let path = temporaryDirectory + "/" + name
            if let status = FileSystem.status(path), now - status.modified >= age, FileSystem.remove(path) { count += 1 }
        }
        return count
    }

    /// `cache prune`: removes expired entries (when `expired`), then least recently used ones until the
    /// cache fits `maxSize`. Returns what was removed.
    public func prune(expired: Bool, maxSize: Int64?) -> CacheRemoval {
        var removed = CacheRemoval()
        if expired {
            let now = FileSystem.now()
            FileSystem.withLock(lockPath) {
                for entry in allEntries() where entry.isExpired(at: now) {
                    if remove(entry) { removed.count += 1; removed.bytes += entry.bytes }
                }
            }
        }
        if let maxSize {
            let evicted = evict(toFit: maxSize)
            removed.count += evicted.count
            removed.bytes += evicted.bytes
        }
        cleanTemporaryFiles()
        return removed
    }

    /// One problem `verify` found.
    public struct Problem: Sendable {
        public var key: String
        public var source: String
        public var reason: String
    }

    /// `cache verify`: checks every entry's image exists, matches its size and checksum, and (when
    /// `decodes` is given) still decodes; also finds image files without metadata (orphans).
    /// With `repair`, bad entries and orphans are removed.
    public func verify(repair: Bool, decodes: (([UInt8]) -> String?)? = nil) -> (checked: Int, problems: [Problem]) {
        var problems: [Problem] = []
        var referenced = Set<String>()
        let entries = allEntries()
        for entry in entries {
            let path = dataPath(entry)
            referenced.insert(path)
            var reason: String?
            if let bytes = try? FileSystem.read(path) {
                if Int64(bytes.count) != entry.bytes {
                    reason = "size \(bytes.count) differs from the recorded \(entry.bytes)"
                } else if Checksum.string(bytes) != entry.checksum {
                    reason = "checksum mismatch"
                } else if let decodes, let failure = decodes(bytes) {
                    reason = "does not decode: \(failure)"
                }
            } else {
                reason = "image file missing"
            }
            if let reason {
                problems.append(Problem(key: entry.key, source: entry.source, reason: reason))
                if repair { remove(entry) }
            }
        }
        for shard in FileSystem.list(root) where shard.utf8.count == 2 {
            let dir = root + "/" + shard
            for name in FileSystem.list(dir) where !name.hasSuffix(".meta") {
                let path = dir + "/" + name
                if !referenced.contains(path) {
                    let key = String(name.prefix { $0 != "." })
                    // Written but not yet committed by a writer running now? Only report files over a minute old.
                    if let status = FileSystem.status(path), FileSystem.now() - status.modified < 60 { continue }
                    problems.append(Problem(key: key, source: "", reason: "image without metadata (orphan)"))
                    if repair { FileSystem.remove(path) }
                }
            }
        }
        if repair { cleanTemporaryFiles() }
        return (entries.count, problems)
    }

    public struct Statistics: Sendable {
        public var entries = 0
        public var bytes: Int64 = 0
        public var originals = 0
        public var originalBytes: Int64 = 0
        public var variants = 0
        public var variantBytes: Int64 = 0
        public var expired = 0
        public var oldest: Double?
        public var newest: Double?
    }

    public func statistics() -> Statistics {
        var s = Statistics()
        let now = FileSystem.now()
        for e in allEntries() {
            s.entries += 1
            s.bytes += e.bytes
            if e.isOriginal { s.originals += 1; s.originalBytes += e.bytes } else { s.variants += 1; s.variantBytes += e.bytes }
            if !e.isFresh(at: now) { s.expired += 1 }
            s.oldest = min(s.oldest ?? e.created, e.created)
            s.newest = max(s.newest ?? e.created, e.created)
        }
        return s
    }
}
