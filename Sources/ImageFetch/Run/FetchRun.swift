/// The owner of one run (a `get`, a `prefetch`), as Nuke's `ImagePipeline` owns its tasks and curl's
/// `GlobalConfig` its parallel transfers: built once from one `FetchSettings`, it does the
/// process-wide set-up of libcurl and libvips, applies every limit (the one place `Limits` is read),
/// and owns the engine, the pipeline with its origin gate, the coalescer of a batch (`Prefetcher`)
/// and the remote tier's uploader. The caller reads one stream of events (`events(for:)`: results,
/// retry notices, upload warnings, progress), stops it with one `cancel()` from any thread or task
/// (a signal, a closed stdout, a watchdog), and ends with one `finish`.
public final class FetchRun: Sendable {
    /// The libcurl engine of every transfer of the run, the tier's included.
    public let engine: CurlEngine
    public let pipeline: ImagePipeline
    /// The remote tier, with its uploader; nil: none.
    public let remote: RemoteCache?
    /// The coalescer of a batch's identical requests, at most `Limits.retrievals` in flight.
    let prefetcher: Prefetcher
    /// Who is woken when something is to be read, and what `cancel()` stops.
    let reader: Reader

    /// The origins' breaker and holds.
    public var origins: OriginGate? { pipeline.origins }
    public var cache: any ImageCaching { pipeline.cache }

    /// Throws what `RemoteStores.make` throws for a tier that cannot be used. Nothing is loaded here:
    /// libcurl and libvips load when a request needs them, with the set-up done now.
    public init(_ settings: FetchSettings, engine: CurlEngine = .shared) throws(FetchError) {
        let limits = settings.limits
        let reader = Reader()
        // The process-wide set-up, before anything loads.
        if settings.allowsJXL { VipsBridge.allowJXL() }
        if let threads = settings.threadsPerImage {
            VipsBridge.setConcurrency(threads)
            PixelSourcePath.setThreadsPerImage(threads)
        }
        if let cookies = settings.cookies { engine.useCookies(cookies) }
        // Every limit, here: the engine's connection caps and overall byte rate, the tier's direct
        // reads and uploads, the rate limiter (network loads only), the processing pool's width,
        // the retrievals a batch keeps in flight.
        engine.limit(connections: limits.transfers, perHost: limits.perHost, totalRate: limits.totalRate)
        var remote: RemoteCache?
        if let tier = settings.remote {
            var store = tier.store
            store.maxDirectReads = limits.tierDirectReads
            let uploader = RemoteUploader(capacity: limits.uploadQueue, concurrency: limits.uploads, warned: { reader.wake() })
            remote = RemoteCache(store: try RemoteStores.make(store, engine: engine), mode: tier.mode, uploader: uploader)
        }
        let origins = OriginGate(policy: limits.origins, marks: settings.hostMarks, holds: settings.originHolds)
        var loader: any DataLoading = OriginGatedLoader(SourceLoader(network: settings.network, engine: engine), gate: origins)
        if let rate = limits.rate { loader = RateLimitedLoader(loader, limiter: RateLimiter(perSecond: rate)) }
        let shared = CoalescingLoader(loader)
        // robots.txt and tdmrep.json go through the same loader: paced, gated and counted like the origin's other requests.
        let polite = settings.politeness.isActive
            ? Politeness(policy: settings.politeness, files: PolicyFiles(store: settings.policyFiles, loader: shared, remote: remote),
                         schedule: origins.schedule) : nil
        pipeline = ImagePipeline(cache: settings.cache, loader: shared, processor: VipsProcessor(maxFrames: settings.maxFrames),
                                 pool: ProcessingPool(width: limits.processing), remote: remote, network: settings.network,
                                 origins: origins, politeness: polite)
        pipeline.activity.listen { reader.wake() }
        prefetcher = Prefetcher(pipeline: pipeline, inFlight: limits.retrievals)
        self.engine = engine
        self.remote = remote
        self.reader = reader
    }

    /// Stops the run, from any thread or task, at once and for good: no transfer starts after it
    /// (the loads are cancelled first, so no freed connection starts a queued one), the requests
    /// not yet read stay unread, those in flight end as `cancelled` (a download cut short keeps its
    /// bytes to be resumed), and the queued uploads are abandoned. The events then run to their end.
    public func cancel() {
        pipeline.cancelAllLoads()
        reader.cancel()
        if let remote { Task { await remote.uploader.cancel() } }
    }

    /// Wakes the reader of the events: its next event is `.progress` (after any notice or warning
    /// waiting). The status line's timer calls it. From any thread or task.
    public func wake() { reader.wake() }

    /// What is left to tell once the events have ended (`finish`).
    public struct Ending: Sendable {
        /// Retry notices not yet told.
        public var notices: [RetryNotice] = []
        /// Upload warnings not yet told, and the abandoned uploads' when any were left.
        public var uploadWarnings: [String] = []
        /// Uploads that failed, and that were abandoned; nil without a tier.
        public var uploads: (failed: Int, abandoned: Int)?
    }

    /// Ends the run: the notices left, then the queued uploads waited for at most `uploadTimeout`
    /// seconds (0 after an interrupt), the rest abandoned.
    public func finish(uploadTimeout: Double) async -> Ending {
        var ending = Ending(notices: await pipeline.activity.takeNotices())
        if let remote {
            ending.uploadWarnings = await remote.uploader.finish(timeout: uploadTimeout)
            ending.uploads = (await remote.uploader.failed, await remote.uploader.abandoned)
        }
        return ending
    }
}

extension FetchRun {
    /// The reader of the run's events, seen from the producers: whom a notice, an upload warning or
    /// the status line's timer wakes, and what `cancel()` stops (the batch's driver). One lock;
    /// nothing called under it.
    final class Reader: Sendable {
        private struct State {
            var wake: (@Sendable () -> Void)?
            var stop: (@Sendable () -> Void)?
            var cancelled = false
        }

        private let state = Lock(State())

        /// The events' reader from now on: `wake` wakes it, `stop` stops its driver (at once when
        /// the run is cancelled already).
        func attach(wake: @escaping @Sendable () -> Void, stop: @escaping @Sendable () -> Void) {
            let cancelled = state.withLock { s in
                s.wake = wake
                s.stop = stop
                return s.cancelled
            }
            if cancelled { stop() }
        }

        var isCancelled: Bool { state.withLock { $0.cancelled } }

        func wake() { state.withLock { $0.wake }?() }

        func cancel() {
            state.withLock { s in
                s.cancelled = true
                return s.stop
            }?()
        }
    }
}
