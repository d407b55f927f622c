/// Exact eviction: least recently used entries go until the cache fits, found by a `CacheScan` (names
/// and stat only), in two passes under the cache's lock. Stores do not run it (they take a few
/// candidates each, `DiskCache+Eviction.swift`); the low-water mark sizes the candidate list: a scan
/// lists what takes the cache down to `lowWaterRatio` of the limit, as Nuke trims to 70% and Kingfisher
/// to 50%, so the scan, linear in the number of entries, runs once per (1 - lowWaterRatio) x limit
/// bytes written.
extension DiskCache {
    /// What a store that overflows the limit trims the cache to, as a fraction of the limit. Default 0.8.
    public static let lowWaterRatio = 0.8

    /// The low-water mark of `limit` (never below 0).
    static func lowWater(of limit: Int64) -> Int64 { max(0, Int64(Double(limit) * lowWaterRatio)) }

    /// Evicts least recently used entries until the cache holds at most `limit` bytes (never the
    /// entry `keeping`, just written), by-products first (`CacheEntry.Kept`), under the cache's lock,
    /// and records the new total in `v1/usage`. What `cache prune --max-size` runs, and the last
    /// resort of a store whose incremental eviction could not fit the cache (`DiskCache+Eviction.swift`).
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
            // Stores counted before the lock was taken may still be committing while it is held: their
            // temporary files are there now, or the scan sees their images without metadata.
            var settle = Settlement(inFlight: writesInFlight(version))
            let recent = FileSystem.now() - DiskCache.inFlightAge
            let orphan: (Double) -> Void = { if $0 >= recent { settle.inFlight = true } }
            // An entry touched by a hit between the two passes is not removed; a further round
            // (rare) then takes the next oldest, so the cache always ends within the limit.
            for _ in 0..<4 {
                var total: Int64 = 0
                var ages: [(rank: Double, footprint: Int64)] = []
                scan.forEachEntry(orphan: orphan) { _, e in
                    total = saturatingAdd(total, e.footprint)
                    if e.key != key { ages.append((e.rank, e.footprint)) }
                }
                // Partial downloads count, and go before any entry.
                total = saturatingAdd(total, PartialSlot.footprint(in: version))
                total = trimPartials(toFit: limit, usage: total, in: version)
                guard total > limit else {
                    settle.write(total, removed: removal, self, version)
                    addEvictionTotals(removal, version)
                    return removal
                }
                ages.sort { $0.rank < $1.rank }
                // The cutoff: entries older than it all go, and of those exactly at it, enough to fit.
                var needed = total - limit
                var cutoff = -Double.infinity
                var olderBytes: Int64 = 0
                for age in ages where needed > 0 {
                    if age.rank > cutoff { cutoff = age.rank }
                    needed -= age.footprint
                }
                for age in ages where age.rank < cutoff { olderBytes = saturatingAdd(olderBytes, age.footprint) }
                ages = []
                var tieBudget = total - limit - olderBytes
                var remaining = total
                scan.forEachEntry(orphan: orphan) { shard, e in
                    guard e.key != key, e.rank <= cutoff else { return }
                    if e.rank == cutoff {
                        guard tieBudget > 0 else { return }
                        tieBudget -= e.footprint
                    }
                    let lowDataOf = lowDataOf { shard.read(e.key + ".meta", limit: 1 << 20) }
                    guard shard.remove(e.key + ".meta") else { return }  // gone already: another remover
                    for name in e.dataNames { shard.remove(name) }
                    if let lowDataOf { lowDataIndex.remove(lowDataOf, naming: e.key) }
                    remaining -= e.footprint
                    removal.count += 1
                    removal.bytes = saturatingAdd(removal.bytes, max(0, e.footprint - 512))
                }
                if remaining <= limit {
                    settle.write(max(0, remaining), removed: removal, self, version)
                    addEvictionTotals(removal, version)
                    return removal
                }
            }
            settle.write(scan.total(), removed: removal, self, version)
            addEvictionTotals(removal, version)
            return removal
        }
    }
}

/// How an exact eviction (`evict(toFit:)`, under the lock) sets the total when it ends.
struct Settlement {
    /// A store counted before the lock was taken was still committing during the scan (the scan may
    /// have missed it): the total then only loses what was removed, never going below the scan's count.
    /// Else (no store can be counted while the lock is held) the scan's count is exact.
    var inFlight: Bool

    func write(_ scanned: Int64, removed: CacheRemoval, _ cache: DiskCache, _ version: DirectoryHandle) {
        let current = cache.readUsage(version)
        guard inFlight, let current else {
            cache.replaceUsage(scanned, after: current, version)
            return
        }
        let removedFootprint = removed.bytes.saturatingAdd(Int64(removed.count) * 512)
        cache.replaceUsage(max(scanned, current.total - removedFootprint), after: current, version)
    }
}

extension CacheScan.Entry {
    /// The order eviction takes entries in as one number: by tier (`CacheEntry.Kept`), then by last
    /// access (times are bounded to ±1e13 s, so tiers 4e13 apart never overlap).
    var rank: Double { Double(tier) * 4e13 + lastAccess }
}

/// What a removal (eviction, prune) took away: entries and their image bytes.
public struct CacheRemoval: Sendable, Equatable {
    public var count = 0
    public var bytes: Int64 = 0

    public init(count: Int = 0, bytes: Int64 = 0) {
        self.count = count
        self.bytes = bytes
    }

    public mutating func add(_ other: CacheRemoval) {
        count += other.count
        bytes = bytes.saturatingAdd(other.bytes)
    }
}
