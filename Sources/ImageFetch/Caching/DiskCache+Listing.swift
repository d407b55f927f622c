/// Listing that streams: entries in key order, one shard directory in memory at a time.
extension DiskCache {
    /// The largest `.meta` file read; a larger one is not an entry (metadata is a few hundred bytes;
    /// a `data:` source is stored abbreviated).
    static let maximumMetadataBytes = 64 * 1024

    /// Calls `body` with every committed entry in key order (shard directories `00`...`ff`, names
    /// sorted within each), its last access from the image's mtime, until `body` returns false.
    /// Memory is bounded by one shard directory's names, whatever the size of the cache: the first
    /// entry arrives after one shard is read. Metadata whose key is not its file name, links, and
    /// files over `maximumMetadataBytes` are skipped, as a torn entry is.
    public func forEachEntry(_ body: (CacheEntry) -> Bool) {
        guard let rootDirectory = Directory(root) else { return }
        for shardName in rootDirectory.sortedNames() where CacheScan.isShardName(shardName) {
            guard let shard = Directory(in: rootDirectory, shardName) else { continue }
            // Sorted by the key's first 16 hex digits as an integer (then the key): integer
            // comparisons, as string comparisons of a large shard would grow the cost per entry.
            var keys: [(prefix: UInt64, key: String)] = []
            shard.forEachName { name in
                if let key = CacheKeyName.key(ofMeta: name), key.hasPrefix(shardName) {
                    keys.append((CacheKeyName.leadingValue(key), key))
                }
                return true
            }
            keys.sort { $0.prefix != $1.prefix ? $0.prefix < $1.prefix : $0.key < $1.key }
            for (_, key) in keys {
                let name = key + ".meta"
                guard let bytes = shard.read(name, limit: DiskCache.maximumMetadataBytes),
                      var entry = CacheEntry.decode(bytes), entry.key == key else { continue }
                let dataName = key + "." + (ImageFormat(name: entry.format)?.fileExtension ?? "img")
                if let status = shard.status(dataName), status.isRegular { entry.lastAccess = status.modified }
                if !body(entry) { return }
            }
        }
    }
}

extension DiskCache {
    /// The image bytes of `entry`, read through the shard directory without following a link, and
    /// only when they match the size and checksum of its metadata (as `lookup` requires); else nil.
    /// For the commands that show entries (`cache sheet`, `cache gallery --copy`): no touch, no removal.
    public func verifiedImage(of entry: CacheEntry) -> [UInt8]? {
        guard entry.bytes >= 0, entry.bytes <= Int64(Int32.max),
              let rootDirectory = Directory(root),
              let shard = Directory(in: rootDirectory, String(entry.key.prefix(2))),
              let bytes = shard.read(entry.key + "." + (ImageFormat(name: entry.format)?.fileExtension ?? "img"), limit: Int(entry.bytes)),
              Int64(bytes.count) == entry.bytes, Checksum.string(bytes) == entry.checksum else { return nil }
        return bytes
    }
}
