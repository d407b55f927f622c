import Synchronization

/// Runs many retrievals at once for `prefetch`: at most `jobs` in flight (memory stays bounded whatever
/// the list length), identical keys share one retrieval, and results are reported as they finish.
public final class Prefetcher: Sendable {
    public let pipeline: ImagePipeline
    public let jobs: Int
    private let inFlight = Mutex<[String: Task<Result<ImageResult, RetrievalFailure>, Never>]>([:])

    /// Retrievals in flight: `jobs` transfers, `jobs` more queued in the curl engine so a finished
    /// transfer's slot starts the next one at once (not after the finished image is processed and
    /// stored; a queued transfer's timeout starts only when it is sent), and room for the images
    /// being processed. A queued retrieval holds no memory until its transfer starts.
    public var retrievalsInFlight: Int { 2 * jobs + 2 * pipeline.pool.width }

    public init(pipeline: ImagePipeline, jobs: Int = 8) {
        self.pipeline = pipeline
        self.jobs = max(1, jobs)
    }

    /// One finished line: the item, its outcome, and whether it was served by another line's retrieval.
    public struct Completion: Sendable {
        public var line: Int
        public var request: ImageRequest
        public var outcome: Result<ImageResult, RetrievalFailure>
        public var coalesced: Bool
    }

    /// Pulls requests from `next` (nil ends the list) until it is exhausted or the task is cancelled,
    /// calling `onCompletion` (from several tasks: it must be thread-safe) for each.
    public func run(next: @escaping @Sendable () async -> (line: Int, request: ImageRequest)?,
                    onCompletion: @escaping @Sendable (Completion) -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            let limit = retrievalsInFlight
            while !Task.isCancelled, let item = await next() {
                if running >= limit {
                    await group.next()
                    running -= 1
                }
                running += 1
                group.addTask {
                    let (outcome, coalesced) = await self.retrieve(item.request)
                    onCompletion(Completion(line: item.line, request: item.request, outcome: outcome, coalesced: coalesced))
                    // Served within a stale-while-revalidate window: revalidated in the rest of the run.
                    if !coalesced, case .success(let result) = outcome, result.needsRevalidation {
                        _ = await self.pipeline.revalidate(item.request)
                    }
                }
            }
            await group.waitForAll()
        }
    }

    /// Identical keys in flight share one retrieval; the later ones report it as coalesced.
    /// (data: URLs are not shared: they load no network, and their key would digest all their bytes
    /// before the pipeline could refuse them for their size.)
    func retrieve(_ request: ImageRequest) async -> (Result<ImageResult, RetrievalFailure>, Bool) {
        let pipeline = self.pipeline
        if case .data = request.source { return (await pipeline.retrieve(request), false) }
        let key = request.coalescingKey
        let (task, owner) = inFlight.withLock { map in
            if let existing = map[key] { return (existing, false) }
            let task = Task { await pipeline.retrieve(request) }
            map[key] = task
            return (task, true)
        }
        let outcome = await withTaskCancellationHandler { await task.value } onCancel: { if owner { task.cancel() } }
        if owner { inFlight.withLock { $0[key] = nil } }
        guard !owner, case .success(var shared) = outcome else { return (outcome, !owner) }
        shared.cache = .hit
        shared.attempts = 0
        shared.downloadedBytes = 0
        return (.success(shared), true)
    }
}

/// Counts for the final summary record.
public struct PrefetchSummary: Sendable {
    public var total = 0
    public var ok = 0
    public var failed = 0
    /// Served from a cache (local or remote: `remote` of them came from the remote tier).
    public var hits = 0
    public var remote = 0
    public var lowData = 0
    public var malformed = 0
    public var skippedByShard = 0
    public var bytesDownloaded: Int64 = 0
    public var cacheErrors = 0
    public var notCached = 0
    /// Retrievals abandoned by an interrupt: neither delivered nor failed, and not in `total`.
    public var cancelled = 0

    public init() {}

    public mutating func record(_ completion: Prefetcher.Completion) {
        if case .failure(let f) = completion.outcome, f.error == .cancelled {
            cancelled += 1
            return
        }
        total += 1
        switch completion.outcome {
        case .success(let r):
            ok += 1
            if r.cache != .miss { hits += 1 }
            if r.cache == .remote { remote += 1 }
            if r.lowData { lowData += 1 }
            bytesDownloaded += r.downloadedBytes
            if r.cacheError != nil { cacheErrors += 1 }
        case .failure(let f):
            failed += 1
            if f.error.isNotCached { notCached += 1 }
        }
    }
}
