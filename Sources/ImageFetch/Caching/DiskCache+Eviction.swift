#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The size limit, store by store. Every store adds its footprint to `v1/usage` and commits under
/// the cache's lock (a few microseconds; every removal by eviction holds it too, so that none runs
/// between a store's two renames). A store that takes the cache over its hard limit then deletes entries
/// from the candidate list (`DiskCache+Candidates.swift`), `batchSize` at a time, each batch under
/// the lock (the first in the same hold as its count), until the cache fits again: a few entries for
/// a store of ordinary size, never more than the excess plus one entry (the limit keeps what it can).
/// When the list is used up (or void), the store rebuilds it by a scan that holds no lock, so the
/// stores of other processes go on meanwhile; with `deferredScans` (`get`) only when the cache is
/// far over the limit (a limit just lowered: that store pays for deleting the excess, least recently
/// used first), else it evicts from a sample and the scan runs in another process
/// (`DiskCache+Sampling.swift`). No store waits for a scan: one that finds another store of its
/// process listing evicts from a sample too. A by-product stored while the list's next candidates
/// are outputs asked for is listed in front of the cursor (`listByproduct`), so by-products still
/// go first without a new scan.
///
/// The total (`DiskCache+Usage.swift`) never counts less than the cache holds, so a command that
/// ends with the total at or under the limit (`fitLimit`) ends with the cache so. Each writer keeps
/// that: a store is counted before its commit; a removal subtracts what it deleted, after deleting
/// it; a count by a scan replaces the total only when exact (a candidate scan: no write of the total
/// between its start and its end, by the generation; an exact eviction: it holds the lock, so only
/// stores counted before it took the lock can commit meanwhile; either way, no such store in flight).
/// What a process killed anywhere (kill -9, an OOM kill) leaves:
/// - a store killed after its count: a temporary file in `v1/tmp` or an image without metadata, never
///   an entry, and a total too high by its footprint; such a file younger than `inFlightAge` also
///   keeps every scan's count from replacing the total, so the excess stays until an hour has passed;
/// - an eviction killed in a batch: entries gone (metadata first, so none half-removed is served),
///   the total and the cursor not yet written: too high, and listed records already gone are skipped;
/// - a scan killed: the old list (replaced only by rename), or the new one with the total untouched.
/// So the next command's store or `fitLimit` sees the cache over its limit whenever it is, and evicts.
/// A power loss can also lose the last writes of the total (nothing is fsynced by default): it may
/// then count too little until the next candidate scan's exact count replaces it.
extension DiskCache {
    var usagePath: String { root + "/" + CacheLayout.usageFile }
    var lockPath: String { root + "/" + CacheLayout.lockFile }
    /// The largest total `v1/usage` may hold (`DiskCache+Usage.swift`); anything else there is
    /// ignored (and recounted).
    static let usageLimit: Int64 = 1 << 62
    /// Candidates deleted under one hold of the lock.
    static let batchSize = 32

    /// With the lock held, by a store about to commit in the same hold: adds the write's footprint
    /// to the running total and, when that takes the cache over the limit, deletes a first batch of
    /// candidates (most stores need no other). Returns whether the cache then fits and what was
    /// evicted; nil without a limit. The first write of a process reads `v1/usage` (or scans once
    /// when it is missing). The running total is shared by every process using the directory: it
    /// is re-read and updated under the lock on each write, so one process sees another's writes.
    func reserveHoldingLock(for entry: CacheEntry, in version: DirectoryHandle) -> (fits: Bool, evicted: CacheRemoval)? {
        guard let limit = sizeLimit else { return nil }
        let current = readUsage(version)
        let updated = (current?.total ?? scanTotal(version)).saturatingAdd(entry.footprint)
        if entry.kept == .byproduct { listByproduct(entry, in: version) }
        guard updated > limit else {
            replaceUsage(updated, after: current, version)
            return (true, CacheRemoval())
        }
        let batch = evictBatch(toFit: limit, usage: updated, after: current, keeping: entry.key, in: version)
        return (batch.fits, batch.removal)
    }

    /// With the lock held, for a by-product being stored: a list whose next candidates include
    /// outputs asked for would delete them while this newer by-product stays, so the by-product is
    /// listed in front of the cursor (in the slot of a record already used; records before the
    /// cursor are gone), where the next store over the limit takes it, by-products first, with no
    /// scan. A list with no record used yet is cut to its by-products instead (its count rewritten),
    /// so that the store that uses them up lists again.
    func listByproduct(_ entry: CacheEntry, in version: DirectoryHandle) {
        guard let header = candidateHeader(version), header.firstRequested < header.count, header.cursor < header.count else { return }
        guard header.cursor > 0 else {
            version.patch(Array(EvictionCandidates.digits(header.firstRequested).utf8),
                          at: CacheLayout.candidatesFile, offset: EvictionCandidates.countOffset)
            return
        }
        // The image was written before this point: its mtime is at most now, so the record's
        // last access matches it until a hit touches it (which then keeps it, as for any record).
        let ext = ImageFormat(name: entry.format)?.fileExtension ?? ""
        let record = EvictionCandidates.Record(key: entry.key, tier: CacheEntry.Kept.byproduct.tier, footprint: entry.footprint,
                                               lastAccess: FileSystem.now(), ext: CacheLayout.imageExtensions.contains(ext) ? ext : "")
        let slot = header.cursor - 1
        version.patch(EvictionCandidates.encode(record), at: CacheLayout.candidatesFile,
                      offset: EvictionCandidates.headerSize + slot * EvictionCandidates.recordSize)
        version.patch(Array(EvictionCandidates.digits(slot).utf8), at: CacheLayout.candidatesFile,
                      offset: EvictionCandidates.cursorOffset)
    }

    /// Evicts until the cache fits its limit when the running total says it does not (a store of
    /// another process, or one killed before its eviction, may have left it over): what `get` and
    /// `prefetch` run before they end, so the limit holds when a command ends. One small read when
    /// the cache fits. Also records this process's evictions in the running totals.
    @discardableResult
    public func fitLimit() -> CacheRemoval {
        guard let version = (try? openVersion()) ?? nil else { return CacheRemoval() }
        defer { flushEvictionTotals(version) }
        guard let limit = sizeLimit, let usage = readTotal(version), usage > limit else { return CacheRemoval() }
        return evictIncrementally(toFit: limit, keeping: nil, in: version)
    }

    /// One batch, with the lock held: deletes up to `batchSize` candidates from the cursor on until
    /// `usage` fits `limit`, and writes the total (when it is not `current`'s, the record read) and
    /// the cursor. `exhausted`: the list is used up (or void) and the cache does not fit.
    func evictBatch(toFit limit: Int64, usage total: Int64, after current: Usage?, keeping key: String?,
                    in version: DirectoryHandle) -> (fits: Bool, exhausted: Bool, removal: CacheRemoval) {
        // Partial downloads go before any entry.
        var usage = trimPartials(toFit: limit, usage: total, in: version)
        guard let (listed, records) = candidateBatch(version, limit: DiskCache.batchSize) else {
            if usage != current?.total { replaceUsage(max(0, usage), after: current, version) }
            return (usage <= limit, usage > limit, CacheRemoval())
        }
        var header = listed
        var batch = CacheRemoval()
        var shards: [String: DirectoryHandle] = [:]
        // The entry being stored may be listed (a by-product listed by its own store's scan, or the
        // entry it replaces): it stays, and the cursor stops at it, so that the next store can take it.
        var kept: Int?
        var void = false
        for i in 0..<records.count {
            if usage <= limit { break }
            guard let record = records.record(i) else { void = true; break }   // rebuilt by the next scan
            header.cursor += 1
            guard record.key != key else {
                if kept == nil { kept = header.cursor - 1 }
                continue
            }
            let name = shardName(record.key)
            if shards[name] == nil { shards[name] = try? version.subdirectory(name) }
            guard let shard = shards[name], let footprint = removeCandidate(record, in: shard) else { continue }
            usage -= footprint
            batch.count += 1
            batch.bytes = saturatingAdd(batch.bytes, max(0, footprint - 512))
        }
        let exhausted = (void || header.cursor >= header.count) && usage > limit
        // Only when this store is done: a store going on to the next batch must get past it.
        if let kept, usage <= limit { header.cursor = kept }
        if records.count > 0 {
            version.patch(Array(EvictionCandidates.digits(header.cursor).utf8), at: CacheLayout.candidatesFile,
                          offset: EvictionCandidates.cursorOffset)
        }
        if usage != current?.total { replaceUsage(max(0, usage), after: current, version) }
        addEvictionTotals(batch, version)
        return (usage <= limit, exhausted, batch)
    }

    /// Deletes candidates in batches until the cache holds at most `limit` bytes; rebuilds the list
    /// once when it runs out (a store of `get` only when the cache is far over the limit: a limit
    /// just lowered, `mayScan`). A store never waits for a scan: when this process's other store,
    /// or another process, is writing the list, or the list is used up again, it evicts from a
    /// sample of shards (`evictFromSample`). The exact eviction (`evict(toFit:)`) is the last
    /// resort (a small cache, entries used since they were listed), so the hard limit holds when
    /// the store returns.
    func evictIncrementally(toFit limit: Int64, keeping key: String?, in version: DirectoryHandle) -> CacheRemoval {
        var removal = CacheRemoval()
        var scanned = false
        while true {
            let (fits, exhausted, usage) = version.withLock(CacheLayout.lockFile) { () -> (Bool, Bool, Int64) in
                guard let current = readUsage(version) else { return (false, true, 0) }
                guard current.total > limit else { return (true, false, current.total) }
                let batch = evictBatch(toFit: limit, usage: current.total, after: current, keeping: key, in: version)
                removal.add(batch.removal)
                return (batch.fits, batch.exhausted, current.total - batch.removal.footprint)
            }
            if fits { return removal }
            guard exhausted else { continue }
            // One candidate scan at a time in a process: a store that finds another store's scan
            // running evicts from a sample instead of waiting for its list.
            if !scanned, mayScan(usage: usage, limit: limit, in: version),
               listing.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
                scanned = true
                rebuildCandidates(version, needed: { total in max(0, total - DiskCache.lowWater(of: limit)) }, keeping: key)
                listing.store(false, ordering: .releasing)
                continue
            }
            guard let sampled = evictFromSample(toFit: limit, keeping: key, in: version) else { break }
            if deferredScans && !scanRunning(version) { scanWanted.store(true, ordering: .relaxed) }
            removal.add(sampled)
            return removal
        }
        removal.add(evict(toFit: limit, keeping: key, in: version))
        return removal
    }

    /// Whether a store whose list is used up scans the cache itself. Without `deferredScans`
    /// (`prefetch`, a long process): yes, once per list. With them (`get`): only when the cache
    /// is more than `scanExcess` over the limit (a limit just lowered: this store pays for deleting
    /// the excess, least recently used first, and lists the rest for the stores after it) and no
    /// background scan is writing the list.
    func mayScan(usage: Int64, limit: Int64, in version: DirectoryHandle) -> Bool {
        guard deferredScans else { return true }
        return usage - limit > DiskCache.scanExcess(of: limit) && !scanRunning(version)
    }

    /// The excess over the limit past which a store of `get` scans: 1% of the limit.
    static func scanExcess(of limit: Int64) -> Int64 { max(0, limit / 100) }

    /// Removes the listed entry when it is still what the scan saw: no more recently used (an image's
    /// mtime newer than recorded: a hit or a new store since), in no higher tier. Returns its
    /// footprint when removed, nil when it was left (or is gone already: another remover).
    func removeCandidate(_ record: EvictionCandidates.Record, in shard: DirectoryHandle) -> Int64? {
        var footprint: Int64 = 512, lastAccess = -Double.infinity, tier = CacheEntry.Kept.requested.tier
        var names: [String] = []
        for name in record.imageNames {
            guard let status = shard.status(name), status.isRegular else { continue }
            names.append(name)
            footprint = saturatingAdd(footprint, max(0, status.size))
            lastAccess = max(lastAccess, status.modified)
            if !status.ownerWritable { tier = CacheEntry.Kept.byproduct.tier }
        }
        if names.isEmpty {
            guard let status = shard.status(record.key + ".meta"), status.isRegular else { return nil }
            lastAccess = status.modified
        }
        guard lastAccess <= record.lastAccess, tier <= record.tier else { return nil }
        let lowDataOf = lowDataOf { try? shard.read(record.key + ".meta").bytes }
        guard shard.remove(record.key + ".meta") else { return nil }
        for name in names { shard.remove(name) }
        if let lowDataOf { lowDataIndex.remove(lowDataOf, naming: record.key) }
        return footprint
    }
}

extension CacheRemoval {
    /// The footprint of what was removed (images and 512 bytes of metadata each).
    var footprint: Int64 { bytes.saturatingAdd(Int64(count) * 512) }
}

extension CacheEntry {
    /// Bytes an entry takes on disk, counted for the size limit: the image plus its metadata.
    var footprint: Int64 { bytes.saturatingAdd(512) }
}
