/// Running totals of what eviction removed since the cache was made (`cache stats --json`):
/// `v1/evictions`, two numbers on one line, rewritten in place under the cache's lock by each
/// batch that removed something. A hint like `v1/usage`: anything that does not parse counts as 0.
extension DiskCache {
    public struct EvictionTotals: Sendable, Equatable {
        public var evictions: Int64 = 0
        public var evictedBytes: Int64 = 0
    }

    /// The totals; zero when the file is absent or not ours.
    public func evictionTotals() -> EvictionTotals {
        guard let version = (try? openVersion()) ?? nil else { return EvictionTotals() }
        return readEvictionTotals(version)
    }

    func readEvictionTotals(_ version: DirectoryHandle) -> EvictionTotals {
        guard let (bytes, _) = try? version.read(CacheLayout.evictionTotalsFile), bytes.count <= 64 else { return EvictionTotals() }
        let fields = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 2, let count = Int64(fields[0]), let size = Int64(fields[1]),
              (0...DiskCache.usageLimit).contains(count), (0...DiskCache.usageLimit).contains(size) else { return EvictionTotals() }
        return EvictionTotals(evictions: count, evictedBytes: size)
    }

    /// Adds `removal` to the totals; called with the cache's lock held.
    func addEvictionTotals(_ removal: CacheRemoval, _ version: DirectoryHandle) {
        guard removal.count > 0 else { return }
        var totals = readEvictionTotals(version)
        totals.evictions = min(DiskCache.usageLimit, totals.evictions.saturatingAdd(Int64(removal.count)))
        totals.evictedBytes = min(DiskCache.usageLimit, totals.evictedBytes.saturatingAdd(removal.bytes))
        let text = String(totals.evictions) + " " + String(totals.evictedBytes)
        version.overwrite(Array((text + String(repeating: " ", count: max(0, 40 - text.count)) + "\n").utf8),
                          at: CacheLayout.evictionTotalsFile)
    }
}
