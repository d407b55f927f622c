/// Eviction: least recently used entries go until the cache fits, found by a `CacheScan` (names and
/// stat only). A store that takes the cache over its hard limit trims it to `lowWaterRatio` of the
/// limit, as Nuke trims to 70% and Kingfisher to 50%: the scan, linear in the number of entries,
/// then runs once per (1 - lowWaterRatio) x limit bytes written, not on every store, so a store into
/// a full cache costs about what a store into an empty one does.
extension DiskCache {
    /// What a store that overflows the limit trims the cache to, as a fraction of the limit. Default 0.8.
    public static let lowWaterRatio = 0.8

    /// The low-water mark of `limit` (never below 0).
    static func lowWater(of limit: Int64) -> Int64 { max(0, Int64(Double(limit) * lowWaterRatio)) }

    /// Evicts least recently used entries until the cache holds at most `limit` bytes (never the
    /// entry `keeping`, just written), under the cache's lock, and records the new total in `v1/usage`.
    /// Exact LRU: a first pass finds the last-access cutoff, a second removes the entries older than
    /// it (metadata first, as `remove` does). Memory: 16 bytes per entry during the first pass.
    @discardableResult
    public func evict(toFit limit: Int64, keeping key: String? = nil) -> CacheRemoval {
        guard let version = (try? openVersion()) ?? nil else { return CacheRemoval() }
        return evict(toFit: limit, keeping: key, in: version)
    }

    /// The same, in the open `v1` (its lock file and usage total reached through it, never a link).
    @discardableResult
    func evict(toFit limit: Int64, keeping key: String?, in version: DirectoryHandle) -> CacheRemoval {
        version.withLock(CacheLayout.lockFile) {
            var removal = CacheRemoval()
            guard let scan = CacheScan(root: root) else { return removal }
            // An entry touched by a hit between the two passes is not removed; a further round
            // (rare) then takes the next oldest, so the cache always ends within the limit.
            for _ in 0..<4 {
                var total: Int64 = 0
                var ages: [(lastAccess: Double, footprint: Int64)] = []
                scan.forEachEntry { _, e in
                    total = saturatingAdd(total, e.footprint)
                    if e.key != key { ages.append((e.lastAccess, e.footprint)) }
                }
                guard total > limit else {
                    writeUsage(total, version)
                    return removal
                }
                ages.sort { $0.lastAccess < $1.lastAccess }
                // The cutoff: entries older than it all go, and of those exactly at it, enough to fit.
                var needed = total - limit
                var cutoff = -Double.infinity
                var olderBytes: Int64 = 0
                for age in ages where needed > 0 {
                    if age.lastAccess > cutoff { cutoff = age.lastAccess }
                    needed -= age.footprint
                }
                for age in ages where age.lastAccess < cutoff { olderBytes = saturatingAdd(olderBytes, age.footprint) }
                ages = []
                var tieBudget = total - limit - olderBytes
                var remaining = total
                scan.forEachEntry { shard, e in
                    guard e.key != key, e.lastAccess <= cutoff else { return }
                    if e.lastAccess == cutoff {
                        guard tieBudget > 0 else { return }
                        tieBudget -= e.footprint
                    }
                    guard shard.remove(e.key + ".meta") else { return }  // gone already: another remover
                    for name in e.dataNames { shard.remove(name) }
                    remaining -= e.footprint
                    removal.count += 1
                    removal.bytes = saturatingAdd(removal.bytes, max(0, e.footprint - 512))
                }
                if remaining <= limit {
                    writeUsage(max(0, remaining), version)
                    return removal
                }
            }
            writeUsage(scan.total(), version)
            return removal
        }
    }
}

/// What a removal (eviction, prune) took away: entries and their image bytes.
public struct CacheRemoval: Sendable, Equatable {
    public var count = 0
    public var bytes: Int64 = 0

    public init(count: Int = 0, bytes: Int64 = 0) {
        self.count = count
        self.bytes = bytes
    }
}
