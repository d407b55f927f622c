/// A run's batch (`FetchRun.events`): requests in, results out, as they finish. At most
/// `inFlight` retrievals run at once (`Limits.retrievals`, given by the run: memory stays bounded
/// whatever the list length) and identical requests in flight share one retrieval
/// (`RequestPlan.retrievalKey`: the whole request). It holds nothing of its caller's: the caller
/// tags each request (a list line's number) and reads the results from one sequence, on one task.
public final class Prefetcher: Sendable {
    public let pipeline: ImagePipeline
    /// Retrievals in flight at most.
    let inFlight: Int
    private let retrievals = TaskCoalescer<ImageRequest, Result<ImageResult, RetrievalFailure>>()

    init(pipeline: ImagePipeline, inFlight: Int) {
        self.pipeline = pipeline
        self.inFlight = max(1, inFlight)
    }

    /// One request and the caller's tag for it (a list line's number, its output name: never part
    /// of a key). An item without a request is handed back at once, so that a caller can keep its
    /// own events (a malformed line) in order in the one sequence it reads.
    public struct Item<Tag: Sendable>: Sendable {
        public var tag: Tag
        public var request: ImageRequest?
        public init(tag: Tag, request: ImageRequest?) {
            self.tag = tag
            self.request = request
        }
    }

    /// One finished item: its tag and request, the outcome (nil for an item without a request), and
    /// whether another request's retrieval served it.
    public struct Completion<Tag: Sendable>: Sendable {
        public var tag: Tag
        public var request: ImageRequest?
        public var outcome: Result<ImageResult, RetrievalFailure>?
        public var coalesced = false
    }

    /// The results of `requests`, in the order they finish. Requests are read only as slots free
    /// up; cancelling the task that reads the results (or `Results.cancel()`) cancels the
    /// retrievals in flight (each then ends as `cancelled`, still delivered) and reads no more requests.
    public func results<Requests: AsyncSequence & Sendable, Tag: Sendable>(for requests: Requests) -> Results<Tag>
        where Requests.Element == Item<Tag> {
        Results.start(capacity: inFlight) { [self] channel in
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                let limit = inFlight
                var previous: RequestPlan?   // the driver's own: lines of one processing share its encoding
                do {
                    for try await item in requests {
                        if Task.isCancelled { break }
                        guard let request = item.request else {
                            await channel.send(Completion(tag: item.tag, request: nil, outcome: nil))
                            continue
                        }
                        if running >= limit {
                            await group.next()
                            running -= 1
                        }
                        running += 1
                        let plan = pipeline.plan(request, reusing: previous)
                        previous = plan
                        group.addTask {
                            let (outcome, coalesced) = await self.retrieve(plan)
                            await channel.send(Completion(tag: item.tag, request: request, outcome: outcome, coalesced: coalesced))
                            // Served within a stale-while-revalidate window: revalidated in the rest of the run.
                            if !coalesced, case .success(let result) = outcome, result.needsRevalidation {
                                _ = await self.pipeline.revalidate(request)
                            }
                        }
                    }
                } catch {}
                await group.waitForAll()
            }
        }
    }

    /// The sequence `results(for:)` returns; read it from one task.
    public typealias Results<Tag: Sendable> = ChannelSequence<Completion<Tag>>

    /// Identical requests in flight share one retrieval; the later ones report it as coalesced.
    /// (data: URLs are not shared: they load no network, and their key would digest all their bytes
    /// before the pipeline could refuse them for their size.)
    func retrieve(_ plan: RequestPlan) async -> (Result<ImageResult, RetrievalFailure>, coalesced: Bool) {
        let pipeline = self.pipeline
        if case .data = plan.request.source { return (await pipeline.retrieve(plan), false) }
        // A fresh hit is no work to share.
        if let hit = pipeline.freshHit(plan) { return (.success(hit), false) }
        let cancelled = Result<ImageResult, RetrievalFailure>.failure(RetrievalFailure(error: .cancelled, attempts: 0, milliseconds: 0, key: nil))
        let (outcome, shared) = await retrievals.value(for: plan.retrievalKey, cancelled: cancelled) { await pipeline.retrieve(plan) }
        guard shared, case .success(var result) = outcome else { return (outcome, shared) }
        result.cache = .hit
        result.attempts = 0
        result.downloadedBytes = 0
        // The retrieval it shared stored and evicted; this one did neither (the summary counts each once).
        result.keptOriginalBytes = 0
        result.evicted = CacheRemoval()
        return (.success(result), true)
    }
}
