/// A scan of the cache directory that reads names and `fstatat` results only, never a `.meta`:
/// what eviction and the usage total need (footprint and last access), at a fraction of the cost
/// of decoding every entry. Shard directories are read one at a time, so memory is bounded by the
/// largest shard, and nothing is reached through a symbolic link (see `Directory`).
///
/// An entry is a `<key>.meta` with its image files `<key>.<ext>` in the shard directory `<key prefix 2>`:
/// - footprint: the image files' sizes plus 512 bytes for the metadata (as `CacheEntry.footprint`);
/// - last access: the newest image file's mtime (a metadata file without its image: the metadata's mtime);
/// - tier: a by-product (`CacheEntry.Kept`) when an image file lacks the owner-write bit.
/// Image files without metadata (a write in progress, an orphan) are not entries; names that are not
/// a key, links and other non-regular files are skipped.
struct CacheScan {
    struct Entry {
        var key: String
        var footprint: Int64
        var lastAccess: Double
        /// Image file names, usually one.
        var dataNames: [String]
        /// `CacheEntry.Kept.tier`, from the image's owner-write bit (no `.meta` is read): a
        /// by-product's image is written without it.
        var tier: UInt8 = CacheEntry.Kept.requested.tier
    }

    let root: Directory

    init?(root path: String) {
        guard let root = Directory(path) else { return nil }
        self.root = root
    }

    /// Calls `body` for every entry, shard by shard (shards in order; entries in directory order), with the
    /// open shard directory (for removals relative to it).
    /// `orphan` is called with the mtime of each image file without its metadata (a write in
    /// progress between its two renames, or a leftover).
    func forEachEntry(orphan: ((Double) -> Void)? = nil, _ body: (Directory, Entry) -> Void) {
        for shardName in root.sortedNames() where CacheScan.isShardName(shardName) {
            guard let shard = Directory(in: root, shardName) else { continue }
            for entry in CacheScan.entries(in: shard, shardName: shardName, orphan: orphan) { body(shard, entry) }
        }
    }

    static func isShardName(_ name: String) -> Bool {
        name.utf8.count == 2 && name.utf8.allSatisfy(CacheKeyName.isLowerHexDigit)
    }

    /// The entries of one shard directory, in directory order.
    static func entries(in shard: Directory, shardName: String, orphan: ((Double) -> Void)? = nil) -> [Entry] {
        var metas: [String] = []
        var data: [String: [String]] = [:]
        shard.forEachName { name in
            if let key = CacheKeyName.key(ofMeta: name) {
                if key.hasPrefix(shardName) { metas.append(key) }
            } else if let (key, _) = CacheKeyName.keyAndExtension(ofData: name), key.hasPrefix(shardName) {
                data[key, default: []].append(name)
            }
            return true
        }
        var out: [Entry] = []
        out.reserveCapacity(metas.count)
        for key in metas {
            var entry = Entry(key: key, footprint: 512, lastAccess: 0, dataNames: [])
            for name in data[key] ?? [] {
                guard let status = shard.status(name), status.isRegular else { continue }
                entry.footprint = saturatingAdd(entry.footprint, max(0, status.size))
                entry.lastAccess = max(entry.lastAccess, status.modified)
                entry.dataNames.append(name)
                if !status.ownerWritable { entry.tier = CacheEntry.Kept.byproduct.tier }
            }
            if entry.dataNames.isEmpty {
                guard let status = shard.status(key + ".meta"), status.isRegular else { continue }
                entry.lastAccess = status.modified
            }
            out.append(entry)
        }
        if let orphan, data.count > metas.count {
            let committed = Set(metas)
            for (key, names) in data where !committed.contains(key) {
                for name in names { if let status = shard.status(name) { orphan(status.modified) } }
            }
        }
        return out
    }

    /// The total footprint of every entry.
    func total() -> Int64 {
        var total: Int64 = 0
        forEachEntry { _, e in total = saturatingAdd(total, e.footprint) }
        return total
    }
}

/// `a + b`, or `Int64.max` instead of overflowing (sizes read from disk are not trusted).
func saturatingAdd(_ a: Int64, _ b: Int64) -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? (b > 0 ? .max : .min) : sum
}
