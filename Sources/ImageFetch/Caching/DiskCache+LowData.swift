/// The cache's low-data index (`LowDataIndex`, `v1/lowdata/`): written when a low-data entry is
/// stored, read by an offline request whose full image is not cached, removed with the entry by
/// every removal (`remove`, eviction, exact eviction, `clear`), and swept by `verify --repair`.
extension DiskCache {
    var lowDataIndex: LowDataIndex { LowDataIndex(root: root) }

    public func indexLowData(_ key: CacheKey, source: String, for original: CacheKey) {
        lowDataIndex.write(LowDataIndex.Record(key: key.rawValue, source: source), for: original.rawValue)
    }

    public func lowDataEntry(for original: CacheKey) -> (cached: CachedImage, source: String)? {
        guard let record = lowDataIndex.read(original.rawValue), let cached = lookup(rawKey: record.key),
              cached.entry.lowDataOf == original.rawValue else { return nil }
        return (cached, record.source)
    }

    /// Removes the index naming `entry` (an entry stored from a low-data source), if any.
    func removeLowDataIndex(of entry: CacheEntry) {
        guard let original = entry.lowDataOf else { return }
        lowDataIndex.remove(original, naming: entry.key)
    }

    /// For the removals that read no metadata (eviction): the request the entry of these metadata
    /// bytes is the low-data entry of; nil when none (or when no index was ever written: no read).
    func lowDataOf(meta read: () -> [UInt8]?) -> String? {
        guard lowDataIndex.isUsable, let bytes = read() else { return nil }
        return CacheEntry.decode(bytes)?.lowDataOf
    }

    /// The index files that find nothing: unreadable, or naming an entry that is gone or does not
    /// name them back (`verify`); removed with `repair`.
    func danglingLowDataIndexes(repair: Bool) -> [String] {
        let index = lowDataIndex
        var dangling: [String] = []
        for name in index.names() {
            if let record = index.read(name), entry(forKey: record.key)?.lowDataOf == name { continue }
            dangling.append(name)
            if repair { _ = FileSystem.remove(index.path(name)) }
        }
        return dangling
    }

    /// Removes every index file and the directory (`clear`), never through a link.
    func clearLowDataIndex(in version: DirectoryHandle) {
        guard let directory = try? version.subdirectory(LowDataIndex.directoryName) else { return }
        for name in directory.list() where CacheLayout.isKey(name) || CacheLayout.isTemporary(name) { directory.remove(name) }
        version.removeDirectory(LowDataIndex.directoryName)
    }
}
