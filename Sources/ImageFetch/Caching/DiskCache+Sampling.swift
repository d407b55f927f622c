/// Deferred scans (`DiskCache.deferredScans`, what `get` uses): a store that finds the candidate
/// list used up evicts from a sample of shards instead of scanning the whole cache, and a scan in
/// the background (`imgfetch cache scan`, started by the CLI) writes the next list. The sample is a
/// few shards from a random one on, their entries ordered as a list is (by-products first, least
/// recently used first): eviction order is approximate until the list is back, the cost of a store
/// bounded, the hard limit kept.
extension DiskCache {
    /// Shards read per sample (of 256): about 1/128 of the cache.
    static let sampleShards = 2
    /// A background scan marked longer ago than this has died: another may start.
    static let scanMarkerAge: Double = 120

    /// A cache estimated (from the first sample) to hold at most this many entries is scanned
    /// whole instead: that costs a store about what a sample does, and keeps the order exact.
    static let smallCache = 2_000

    /// Evicts the lowest-ranked entries of successive samples until the cache fits `limit`; nil,
    /// having evicted nothing, when the cache is small enough to scan (`smallCache`).
    func evictFromSample(toFit limit: Int64, keeping key: String?, in version: DirectoryHandle) -> CacheRemoval? {
        var removal = CacheRemoval()
        guard let scan = CacheScan(root: root) else { return removal }
        let shards = scan.root.sortedNames().filter(CacheScan.isShardName)
        guard !shards.isEmpty else { return removal }
        let start = Int.random(in: 0..<shards.count)
        var at = 0
        while at < shards.count {
            var sample: [EvictionCandidates.Record] = []
            for i in at..<min(at + DiskCache.sampleShards, shards.count) {
                let name = shards[(start + i) % shards.count]
                guard let shard = Directory(in: scan.root, name) else { continue }
                for e in CacheScan.entries(in: shard, shardName: name) where e.key != key {
                    sample.append(EvictionCandidates.Record(e))
                }
            }
            if at == 0 && sample.count * shards.count <= DiskCache.smallCache * min(DiskCache.sampleShards, shards.count) {
                return nil
            }
            at += DiskCache.sampleShards
            sample.sort(by: CandidateHeap.before)
            let fits: Bool = version.withLock(CacheLayout.lockFile) {
                guard let current = readUsage(version) else { return false }
                var usage = trimPartials(toFit: limit, usage: current.total, in: version)   // partials first
                var batch = CacheRemoval()
                for record in sample where usage > limit {
                    guard let shard = try? version.subdirectory(shardName(record.key)),
                          let footprint = removeCandidate(record, in: shard) else { continue }
                    usage -= footprint
                    batch.count += 1
                    batch.bytes = saturatingAdd(batch.bytes, max(0, footprint - 512))
                }
                if usage != current.total { replaceUsage(max(0, usage), after: current, version) }
                addEvictionTotals(batch, version)
                removal.add(batch)
                return usage <= limit
            }
            if fits { return removal }
        }
        removal.add(evict(toFit: limit, keeping: key, in: version))
        return removal
    }

    /// Whether a background scan has been marked in the last `scanMarkerAge` seconds.
    func scanRunning(_ version: DirectoryHandle) -> Bool {
        guard let status = version.status(CacheLayout.scanMarkerFile), status.isRegular else { return false }
        return FileSystem.now() - status.modified < DiskCache.scanMarkerAge
    }

    /// The scan a store of `get` wanted (`scanWanted`), claimed (`claimCandidateScan`).
    public func claimDeferredScan() -> DeferredScan? {
        guard scanWanted.load(ordering: .relaxed), let sizeLimit, claimCandidateScan() else { return nil }
        return DeferredScan(directory: directory, sizeLimit: sizeLimit)
    }

    /// Marks a background scan as started (`v1/scanning`); false when one is running already.
    /// The caller then starts it (`scanCandidates`, in another process).
    public func claimCandidateScan() -> Bool {
        guard let version = (try? openVersion()) ?? nil, !scanRunning(version) else { return false }
        version.remove(CacheLayout.scanMarkerFile)   // a stale mark
        return version.createExclusive(CacheLayout.scanMarkerFile)
    }

    /// The background scan: writes the candidate list, fits the cache to its limit, and clears the mark.
    public func scanCandidates() {
        guard let version = (try? openVersion()) ?? nil else { return }
        defer { version.remove(CacheLayout.scanMarkerFile) }
        guard let limit = sizeLimit else { return }
        rebuildCandidates(version, needed: { total in max(0, total - DiskCache.lowWater(of: limit)) }, keeping: nil)
        _ = fitLimit()
    }
}
