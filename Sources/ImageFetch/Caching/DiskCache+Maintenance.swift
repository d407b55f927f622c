#if canImport(Glibc)
import Glibc
#endif

/// Listing, removal, pruning, verification and statistics: what the `cache` commands use.
extension DiskCache {
    /// Every committed entry (metadata that parses), with last access from the image's mtime.
    public func allEntries() -> [CacheEntry] {
        guard let version = try? openVersion() else { return [] }
        return scan(version).entries
    }

    /// What a walk of the shards finds: entries whose metadata parses and names its own file, and
    /// the shard and key of every other `<key>.meta` (torn: a miss, removed by `verify --repair`).
    /// Only shards that are real directories are read; links and foreign names are skipped.
    func scan(_ version: DirectoryHandle) -> (entries: [CacheEntry], torn: [(shard: String, key: String)]) {
        var entries: [CacheEntry] = []
        var torn: [(shard: String, key: String)] = []
        for shardName in version.list() where CacheLayout.isShard(shardName) {
            guard let shard = try? version.subdirectory(shardName) else { continue }
            for name in shard.list() {
                guard let file = CacheLayout.entryFile(name, inShard: shardName), file.ext == "meta" else { continue }
                guard let (bytes, _) = try? shard.read(name), var entry = CacheEntry.decode(bytes),
                      entry.key.utf8.elementsEqual(file.key.utf8) else {
                    torn.append((shardName, String(file.key)))
                    continue
                }
                if let status = shard.status(dataName(entry)) { entry.lastAccess = status.modified }
                entries.append(entry)
            }
        }
        return (entries, torn)
    }

    /// Entries whose source identity is `identity` (all variants of one source).
    public func entries(forIdentity identity: String) -> [CacheEntry] {
        allEntries().filter { $0.identity == identity }
    }

    /// Removes every entry (files named as entries only: anything else in the directory stays),
    /// the temporary files, the partial downloads and the usage total. Returns the number of entries removed.
    public func clear() -> Int {
        guard let version = try? openVersion() else { return 0 }
        let count = version.withLock(CacheLayout.lockFile) { () -> Int in
            var count = 0
            for shardName in version.list() where CacheLayout.isShard(shardName) {
                guard let shard = try? version.subdirectory(shardName) else { continue }  // a link: never followed
                let files = shard.list().compactMap { name in CacheLayout.entryFile(name, inShard: shardName).map { (name, $0.ext) } }
                // Metadata first: each entry is gone from its removal on.
                for (name, ext) in files where ext == "meta" { if shard.remove(name) { count += 1 } }
                for (name, ext) in files where ext != "meta" { shard.remove(name) }
                version.removeDirectory(shardName)  // only when nothing else is left in it
            }
            clearLowDataIndex(in: version)
            return count
        }
        cleanTemporaryFiles(olderThan: 0, in: version)
        removePartials(all: true)
        version.withLock(CacheLayout.lockFile) { replaceUsage(0, after: readUsage(version), version) }
        return count
    }

    /// Removes temporary files left by interrupted writes (kill -9) older than `age` seconds.
    @discardableResult
    public func cleanTemporaryFiles(olderThan age: Double = 3600) -> Int {
        guard let version = try? openVersion() else { return 0 }
        return cleanTemporaryFiles(olderThan: age, in: version)
    }

    @discardableResult
    func cleanTemporaryFiles(olderThan age: Double, in version: DirectoryHandle) -> Int {
        temporaryFiles(olderThan: age, in: version, removing: true).count
    }

    /// The temporary files older than `age` seconds (count and bytes), removed when `removing`.
    func temporaryFiles(olderThan age: Double, in version: DirectoryHandle, removing: Bool) -> (count: Int, bytes: Int64) {
        guard let temporary = try? version.subdirectory(CacheLayout.temporaryDirectory) else { return (0, 0) }
        let now = FileSystem.now()
        var count = 0
        var bytes: Int64 = 0
        for name in temporary.list() where CacheLayout.isTemporary(name) {
            guard let status = temporary.status(name), now - status.modified >= age, !removing || temporary.remove(name) else { continue }
            count += 1
            bytes = bytes.saturatingAdd(max(0, status.size))
        }
        return (count, bytes)
    }

    /// One problem `verify` found.
    public struct Problem: Sendable {
        public var key: String
        public var source: String
        public var reason: String
    }

    /// `cache verify`: checks every entry's image exists, matches its size and checksum, and (when
    /// `decodes` is given) still decodes; also finds metadata that does not parse or names another
    /// key (torn) and image files without metadata (orphans). With `repair`, all of them are removed.
    public func verify(repair: Bool, decodes: (([UInt8]) -> String?)? = nil) -> (checked: Int, problems: [Problem]) {
        guard let version = try? openVersion() else { return (0, []) }
        var problems: [Problem] = []
        var referenced = Set<String>()
        let (entries, torn) = scan(version)
        for entry in entries {
            guard let shard = try? version.subdirectory(shardName(entry.key)) else { continue }
            let name = dataName(entry)
            referenced.insert(name)
            var reason: String?
            if let (bytes, _) = try? shard.read(name) {
                if Int64(bytes.count) != entry.bytes {
                    reason = "size \(bytes.count) differs from the recorded \(entry.bytes)"
                } else if Checksum.string(bytes) != entry.checksum {
                    reason = "checksum mismatch"
                } else if let decodes, entry.holdsImage, let failure = decodes(bytes) {
                    reason = "does not decode: \(failure)"
                }
            } else {
                reason = "image file missing"
            }
            if let reason {
                problems.append(Problem(key: entry.key, source: entry.source, reason: reason))
                if repair { remove(entry, in: shard) }
            }
        }
        for (shardName, key) in torn {
            problems.append(Problem(key: key, source: "", reason: "metadata unreadable or not this entry's (torn)"))
            if repair, let shard = try? version.subdirectory(shardName) { shard.remove(key + ".meta") }
        }
        for shardName in version.list() where CacheLayout.isShard(shardName) {
            guard let shard = try? version.subdirectory(shardName) else { continue }
            for name in shard.list() where !referenced.contains(name) {
                guard let file = CacheLayout.entryFile(name, inShard: shardName), file.ext != "meta" else { continue }
                // Written but not yet committed by a writer running now? Only report files over a minute old.
                if let status = shard.status(name), FileSystem.now() - status.modified < 60 { continue }
                problems.append(Problem(key: String(file.key), source: "", reason: "image without metadata (orphan)"))
                if repair { shard.remove(name) }
            }
        }
        for name in danglingLowDataIndexes(repair: repair) {
            problems.append(Problem(key: name, source: "", reason: "low-data index that names no entry of its request"))
        }
        if repair { cleanTemporaryFiles(olderThan: 3600, in: version) }
        return (entries.count, problems)
    }

    public struct Statistics: Sendable {
        public var entries = 0
        public var bytes: Int64 = 0
        public var originals = 0
        public var originalBytes: Int64 = 0
        public var variants = 0
        public var variantBytes: Int64 = 0
        /// Originals kept as by-products (`CacheEntry.Kept`), of `originals`.
        public var byproducts = 0
        public var byproductBytes: Int64 = 0
        public var expired = 0
        public var oldest: Double?
        public var newest: Double?
    }

    public func statistics() -> Statistics {
        var s = Statistics()
        let now = FileSystem.now()
        for e in allEntries() {
            s.entries += 1
            s.bytes = s.bytes.saturatingAdd(e.bytes)
            if e.isOriginal { s.originals += 1; s.originalBytes = s.originalBytes.saturatingAdd(e.bytes) }
            else { s.variants += 1; s.variantBytes = s.variantBytes.saturatingAdd(e.bytes) }
            if e.kept == .byproduct { s.byproducts += 1; s.byproductBytes = s.byproductBytes.saturatingAdd(e.bytes) }
            if !e.isFresh(at: now) { s.expired += 1 }
            s.oldest = min(s.oldest ?? e.created, e.created)
            s.newest = max(s.newest ?? e.created, e.created)
        }
        return s
    }
}
