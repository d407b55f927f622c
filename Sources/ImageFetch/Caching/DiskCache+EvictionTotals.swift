import Synchronization

/// Running totals of what eviction removed since the cache was made (`cache stats --json`):
/// `v1/evictions`, two numbers on one line, rewritten in place under the cache's lock. A process
/// adds its evictions every `flushEvery` of them and when it ends (`fitLimit`), not on every store.
/// A hint like `v1/usage`: anything that does not parse counts as 0; a killed process's last ones
/// are not counted.
extension DiskCache {
    static let flushEvery = 256

    public struct EvictionTotals: Sendable, Equatable {
        public var evictions: Int64 = 0
        public var evictedBytes: Int64 = 0
    }

    /// The totals (with this process's evictions not yet added); zero when the file is absent or not ours.
    public func evictionTotals() -> EvictionTotals {
        var totals = ((try? openVersion()) ?? nil).map(readEvictionTotals) ?? EvictionTotals()
        totals.evictions += Int64(pendingEvictions.load(ordering: .relaxed))
        totals.evictedBytes += pendingEvictedBytes.load(ordering: .relaxed)
        return totals
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
        pendingEvictedBytes.add(removal.bytes, ordering: .relaxed)
        if pendingEvictions.add(removal.count, ordering: .relaxed).newValue >= DiskCache.flushEvery { writeEvictionTotals(version) }
    }

    /// Adds the pending evictions to the file, taking the lock.
    func flushEvictionTotals(_ version: DirectoryHandle) {
        guard pendingEvictions.load(ordering: .relaxed) > 0 else { return }
        version.withLock(CacheLayout.lockFile) { writeEvictionTotals(version) }
    }

    /// With the lock held: the file plus the pending evictions, which are then none.
    private func writeEvictionTotals(_ version: DirectoryHandle) {
        let count = pendingEvictions.exchange(0, ordering: .relaxed)
        let bytes = pendingEvictedBytes.exchange(0, ordering: .relaxed)
        guard count > 0 else { return }
        var totals = readEvictionTotals(version)
        totals.evictions = min(DiskCache.usageLimit, totals.evictions.saturatingAdd(Int64(count)))
        totals.evictedBytes = min(DiskCache.usageLimit, totals.evictedBytes.saturatingAdd(bytes))
        let text = String(totals.evictions) + " " + String(totals.evictedBytes)
        version.overwrite(Array((text + String(repeating: " ", count: max(0, 40 - text.count)) + "\n").utf8),
                          at: CacheLayout.evictionTotalsFile)
    }
}
