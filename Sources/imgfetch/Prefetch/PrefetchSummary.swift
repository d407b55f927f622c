import ImageFetch

/// Counts for the final summary record.
struct PrefetchSummary: Sendable {
    var total = 0
    var ok = 0
    var failed = 0
    /// Served from a cache (local or remote: `remote` of them came from the remote tier).
    var hits = 0
    /// Lines that shared another identical line's retrieval (not cache hits): in flight, or a hit
    /// of the entry that retrieval stored earlier in this run (a cold run's duplicate lines).
    var shared = 0
    /// The keys of the entries this run made or refreshed (not hits), by their first 64 bits
    /// (8 bytes a line, not the 64-character key), to tell a hit of one of them from a cache hit.
    private var retrievedHere: Set<UInt64> = []
    /// Files `--no-clobber` kept as they were (`"output": "kept"`).
    var kept = 0
    var remote = 0
    var lowData = 0
    var malformed = 0
    var skippedByShard = 0
    /// Lines skipped by policy (not failures): robots.txt disallowed them, or the server opted out.
    var skippedByRobots = 0
    var skippedByOptOut = 0
    var bytesDownloaded: Int64 = 0
    var cacheErrors = 0
    var notCached = 0
    /// Retrievals abandoned by an interrupt: neither delivered nor failed, and not in `total`.
    var cancelled = 0
    /// What the cache's size limit evicted to make room for this run's entries.
    var evicted = CacheRemoval()
    /// Downloads stopped once a progressive JPEG's first scans served (`SourceReading.partial`),
    /// and the bytes of their sources they did not download (when the length was announced).
    var partial = 0
    var partialSaved: Int64 = 0
    /// Failures by cause (`causes`), and the records' timing by phase (`timing` percentiles).
    var causes = CauseCounts()
    var timing = TimingSketch()
    /// Bytes this run stored: the outputs it made (misses and derived variants), and the originals
    /// kept beside them (`--no-keep-original` not given).
    var outputBytes: Int64 = 0
    var keptOriginalBytes: Int64 = 0

    /// The kept originals took more than 10x the outputs: worth a line saying how to avoid it.
    var originalsOutweighOutputs: Bool { keptOriginalBytes > 0 && keptOriginalBytes > 10 * outputBytes }

    init() {}

    mutating func record(_ outcome: Result<ImageResult, RetrievalFailure>, shared isShared: Bool = false) {
        if case .failure(let f) = outcome, f.error == .cancelled {
            cancelled += 1
            return
        }
        if case .failure(let f) = outcome, let skip = f.error.policySkip {
            if skip.cause == .robots { skippedByRobots += 1 } else { skippedByOptOut += 1 }
            return
        }
        total += 1
        switch outcome {
        case .success(let r):
            ok += 1
            timing.add(r.timing)
            let key = UInt64(r.key.rawValue.prefix(16), radix: 16)
            if isShared || (r.cache == .hit && key.map { retrievedHere.contains($0) } == true) {
                shared += 1
            } else if r.cache != .miss { hits += 1 }
            if r.cache != .hit, let key { retrievedHere.insert(key) }
            if r.cache == .remote { remote += 1 }
            if r.lowData { lowData += 1 }
            if r.reading.partial, r.cache == .miss {
                partial += 1
                if let total = r.reading.sourceBytes { partialSaved += max(0, total - r.downloadedBytes) }
            }
            bytesDownloaded += r.downloadedBytes
            if !isShared, r.cache == .miss || r.cache == .derived { outputBytes += Int64(r.image.bytes.count) }
            keptOriginalBytes += r.keptOriginalBytes
            evicted.add(r.evicted)
            if r.cacheError != nil { cacheErrors += 1 }
        case .failure(let f):
            failed += 1
            causes.add(f.error)
            timing.add(f.timing)
            if f.error.isNotCached { notCached += 1 }
        }
    }
}
