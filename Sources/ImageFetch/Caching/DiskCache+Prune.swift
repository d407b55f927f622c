/// `cache prune`: the entries a selection picks, the least recently used beyond a size, and the
/// leftovers of interrupted writes; or, as a dry run, what would go, removing nothing.
extension DiskCache {
    /// Why prune takes an entry.
    public enum PruneReason: String, Sendable {
        /// The selection picked it (the expired entries, or what the caller's filters match).
        case selected
        /// Least recently used beyond the size asked for (in the order eviction takes them).
        case sizeLimit = "size_limit"
    }

    /// What a prune (or a dry run) went through and took.
    public struct PruneOutcome: Sendable, Equatable {
        /// Entries read (nil: an exact eviction alone, which reads no metadata).
        public var checked: Int?
        /// Entries removed (or that would be) and their image bytes.
        public var removed = CacheRemoval()
        /// Temporary files of interrupted writes, over an hour old, removed (or that would be).
        public var brokenFiles = 0
        public var brokenBytes: Int64 = 0
    }

    /// Temporary files younger than this may belong to a write in progress: never taken.
    static let leftoverAge: Double = 3600

    /// Removes the entries `selects` picks (none when nil), then the least recently used until the
    /// cache fits `maxSize`, then temporary files over an hour old and partial downloads past their
    /// age or budget. `each` hears of every entry removed, or with `dryRun` every entry that would
    /// be (a dry run removes nothing, writes nothing and takes no lock). Without `each`, `maxSize`
    /// is the exact eviction alone (no metadata read; `checked` is then nil unless `selects` read it).
    public func prune(selecting selects: ((CacheEntry) -> Bool)?, maxSize: Int64?, dryRun: Bool,
                      each: ((CacheEntry, PruneReason) -> Void)? = nil) -> PruneOutcome {
        guard let version = (try? openVersion()) ?? nil else { return PruneOutcome() }
        var outcome = PruneOutcome()
        var taken = Set<String>()
        func take(_ entry: CacheEntry, _ reason: PruneReason) -> Bool {
            guard dryRun || remove(entry) else { return false }   // gone already: another remover
            taken.insert(entry.key)
            outcome.removed.add(CacheRemoval(count: 1, bytes: entry.bytes))
            each?(entry, reason)
            return true
        }
        func select() {
            if let selects {
                let entries = scan(version).entries
                outcome.checked = entries.count
                for entry in entries where selects(entry) { _ = take(entry, .selected) }
            }
            // The entries eviction takes, one by one: only when they are to be listed.
            guard let maxSize, dryRun || each != nil else { return }
            let plan = evictionPlan(toFit: maxSize, excluding: taken)
            if outcome.checked == nil { outcome.checked = plan.scanned + taken.count }
            var evicted = CacheRemoval()
            for key in plan.keys {
                guard let entry = entry(forKey: key), take(entry, .sizeLimit) else { continue }
                evicted.add(CacheRemoval(count: 1, bytes: entry.bytes))
            }
            if !dryRun { addEvictionTotals(evicted, version) }
        }
        if dryRun { select() } else { version.withLock(CacheLayout.lockFile) { select() } }
        let broken = temporaryFiles(olderThan: DiskCache.leftoverAge, in: version, removing: !dryRun)
        (outcome.brokenFiles, outcome.brokenBytes) = (broken.count, broken.bytes)
        guard !dryRun else { return outcome }
        // Exact eviction settles the usage total (and takes what a store added meanwhile).
        if let maxSize { outcome.removed.add(evict(toFit: maxSize, keeping: nil, in: version)) }
        flushEvictionTotals(version)
        removePartials(all: false)
        return outcome
    }

    /// The keys eviction would take now to fit `limit`, in its order (by tier, then least recently
    /// used), leaving out `excluding` (already taken): partial downloads go first, so they only
    /// count when entries alone fit.
    func evictionPlan(toFit limit: Int64, excluding: Set<String>) -> (keys: [String], scanned: Int) {
        guard let scan = CacheScan(root: root) else { return ([], 0) }
        var total: Int64 = 0
        var ages: [(rank: Double, footprint: Int64, key: String)] = []
        scan.forEachEntry { _, e in
            guard !excluding.contains(e.key) else { return }
            total = saturatingAdd(total, e.footprint)
            ages.append((e.rank, e.footprint, e.key))
        }
        guard total > limit else { return ([], ages.count) }
        ages.sort { $0.rank < $1.rank }
        var plan: [String] = []
        for age in ages where total > limit {
            plan.append(age.key)
            total -= age.footprint
        }
        return (plan, ages.count)
    }
}
