/// Orchestrates one retrieval (Kingfisher's manager): cache lookup, loading with retries, the low-data
/// fallback and alternative sources, processing, and storing. It never prints, parses arguments or exits.
public final class ImagePipeline: Sendable {
    public let cache: any ImageCaching
    public let memoryCache: MemoryCache?
    public let loader: any DataLoading
    public let processor: any ImageProcessing
    public let pool: ProcessingPool
    public let sleeper: any Sleeping
    /// The remote cache tier behind the local cache (`ImagePipeline+Remote`); nil = none (default).
    public let remote: RemoteCache?
    /// What the pipeline is doing now (transfers' bytes, retry notices), read by the caller.
    public let activity = PipelineActivity()
    /// Whether the network is constrained (low-data mode): what `Save-Data` and partial reads follow.
    /// The loader's own conditions (its constrained refusals) are the same value.
    public let network: NetworkConditions
    /// The origins' breaker and holds (`OriginGate`); nil = none (default).
    public let origins: OriginGate?
    /// robots.txt and the opt-out signals (`Politeness`); nil = none (default).
    public let politeness: Politeness?

    public init(cache: any ImageCaching, memoryCache: MemoryCache? = MemoryCache(), loader: any DataLoading = SourceLoader(),
                processor: any ImageProcessing = VipsProcessor(), pool: ProcessingPool = ProcessingPool(),
                sleeper: any Sleeping = TaskSleeper(), remote: RemoteCache? = nil,
                network: NetworkConditions = NetworkConditions(), origins: OriginGate? = nil, politeness: Politeness? = nil) {
        self.remote = remote
        self.politeness = politeness
        self.network = network
        self.origins = origins
        self.cache = cache
        self.memoryCache = memoryCache
        self.loader = loader
        self.processor = processor
        self.pool = pool
        self.sleeper = sleeper
    }

    /// Abandons every download in flight at once and fails every later one with `cancelled`: the
    /// pipeline's network is closed for good. Cancel the retrieving tasks too. Used for the interrupt
    /// of a batch: no queued transfer starts after it.
    public func cancelAllLoads() {
        loader.cancelAll()
    }

    /// Retrieves one image. Sources are tried as Kingfisher does: the original; on a *constrained*
    /// failure only, the low-data source (once); then the alternatives in order. Never throws: a failure
    /// is returned with every source's error.
    public func retrieve(_ request: ImageRequest) async -> Result<ImageResult, RetrievalFailure> {
        await retrieve(plan(request))
    }

    /// The plan of `request` under this pipeline's cache's credentials (`RequestPlan`); `previous`: a
    /// plan made just before, whose work it may share (the encoding of the same processing).
    public func plan(_ request: ImageRequest, reusing previous: RequestPlan? = nil) -> RequestPlan {
        RequestPlan(request, credentials: cache.credentials, reusing: previous)
    }

    /// Retrieves the image a plan describes (`retrieve(_:)`).
    public func retrieve(_ plan: RequestPlan) async -> Result<ImageResult, RetrievalFailure> {
        let request = plan.request
        var retrieval = Retrieval(plan: plan, started: FileSystem.monotonic())
        var current: Source? = request.source
        func finished(_ found: ImageResult, lowData: Bool) -> Result<ImageResult, RetrievalFailure> {
            var result = withPlaceholders(found, request.options)
            result.originalSource = request.source
            result.lowData = lowData || result.reading.partial
            result.attempts = retrieval.attempts
            result.milliseconds = retrieval.elapsedMilliseconds
            result.timing = retrieval.timing(adding: result.timing, within: result.milliseconds)
            if !retrieval.warnings.isEmpty { result.warnings = retrieval.warnings + result.warnings }
            result.retries = retrieval.retries
            return .success(result)
        }
        while let source = current {
            let before = retrieval.attempts
            retrieval.storedFailure = false
            do {
                return finished(try await retrieve(source: source, retrieval: &retrieval), lowData: retrieval.isLoadingFallback)
            } catch {
                // Offline, the full image not cached: the low-data entry a run stored for it, found by
                // its index without the low-data options (or when the one given is not cached).
                if error.isNotCached, retrieval.isOwnSource ? request.lowDataSource == nil : retrieval.isOfflineFallback,
                   let found = indexedLowData(plan) {
                    return finished(found, lowData: true)
                }
                // The low-data entry looked up offline and not cached either: the source's miss says it.
                if !(retrieval.isOfflineFallback && error.isNotCached) {
                    retrieval.failures.append(SourceFailure(source: source.description, error: error, attempts: retrieval.attempts - before))
                }
                current = retrieval.nextSource(after: error)
            }
        }
        var failure = RetrievalFailure(error: retrieval.finalError, attempts: retrieval.attempts,
                                       milliseconds: retrieval.elapsedMilliseconds, key: plan.failureKey)
        failure.warnings = retrieval.warnings
        failure.timing = retrieval.timing(adding: Timing(), within: failure.milliseconds)
        failure.retries = retrieval.retries
        failure.cached = retrieval.storedFailure
        return .failure(failure)
    }

    /// One source, following its redirects (`ImagePipeline+Redirects`): each hop is a response of
    /// its own, reused from the cache only as its own rules allow.
    func retrieve(source: Source, retrieval: inout Retrieval) async throws(FetchError) -> ImageResult {
        // The request's own source was planned with the request; any other is planned here.
        var hop = try retrieval.isOwnSource ? retrieval.plan.ownSource() : retrieval.plan.plan(for: source)
        var previous: Source?
        var hops = 0
        while true {
            switch try await retrieveHop(hop, redirectedFrom: previous, origin: source, retrieval: &retrieval) {
            case .image(var result):
                result.source = source
                return result
            case .redirect(let target):
                hops += 1
                guard hops <= retrieval.request.options.maxRedirects else {
                    throw .redirectRefused("more than \(retrieval.request.options.maxRedirects) redirects")
                }
                previous = hop.source
                hop = try retrieval.plan.plan(for: target, origin: source)
            }
        }
    }

    /// One hop, in order: the lookup chain (`ImagePipeline+Lookup`: memory, disk, a stored redirect
    /// or failure, the original, the remote tier); what the cache policy allows of a miss or a stale
    /// entry; then (when allowed) the loader with retries (`ImagePipeline+Attempts`), processing and
    /// storing (`ImagePipeline+Store`), or the redirect it answered.
    /// `origin`: the source whose redirects led here; identity goes to its origin only
    /// (`NetworkOptions.sent(to:origin:)`).
    func retrieveHop(_ hop: RequestPlan.SourcePlan, redirectedFrom: Source?, origin: Source? = nil,
                     retrieval: inout Retrieval) async throws(FetchError) -> Hop {
        let source = hop.source
        let options = retrieval.request.options
        let now = FileSystem.now()
        var key = hop.keys.output
        var stale: CachedImage?
        if options.cachePolicy != .forceRefresh {
            switch try await lookUp(hop, origin: origin, now: now, retrieval: &retrieval) {
            case .answer(let answer): return answer
            case .missed(let found, let entry): (key, stale) = (found, entry)
            }
        }
        if options.cachePolicy == .cacheOnly || options.cachePolicy == .offline { throw notCached(stale, now: now) }
        if let stale, source.isNetwork, options.serveStaleWhileRevalidating,
           let result = staleWhileRevalidate(source, key, stale, now: now, options: options) {
            return .image(result)
        }
        return try await load(hop, redirectedFrom: redirectedFrom, origin: origin, stale: stale, staleKey: key,
                              retrieval: &retrieval)
    }

    /// Fresh means usable without asking anyone: an unexpired HTTP entry, a local file whose mtime and
    /// size still match, or a data: URL (its key is the digest of its bytes). `options`: whether
    /// the request would send `Save-Data` (a response that varies on it).
    func isFresh(_ entry: CacheEntry, source: Source, now: Double, options: FetchOptions) -> Bool {
        switch source {
        case .http: entry.isFresh(at: now, saveData: sendsSaveData(options))
        case .file(let path): entry.etag == FileLoader.validator(forPath: path)
        case .data: true
        }
    }

    func makeResult(_ source: Source, _ key: CacheKey, _ cached: CachedImage, _ state: CacheState) -> ImageResult {
        let e = cached.entry
        var image = ProcessedImage(bytes: cached.bytes, width: e.width, height: e.height, format: e.format)
        image.placeholders = e.placeholders
        image.droppedMetadata = e.metadataDropped
        var result = ImageResult(source: source, key: key, path: cached.path, cache: state, image: image)
        result.reading.quality = e.quality
        result.reading.overBudget = e.overBudget
        result.reading.partial = e.partial
        result.sourceSHA256 = e.sourceSHA256
        result.sourceWidth = e.sourceWidth
        result.sourceHeight = e.sourceHeight
        return result
    }

    /// Decodes, downsamples and encodes on the processing pool, by the hop's route.
    func process(_ bytes: [UInt8], _ hop: RequestPlan.SourcePlan, options: FetchOptions,
                 processing: Processing? = nil) async throws(FetchError) -> ProcessedImage {
        let processor = self.processor
        let processing = processing ?? hop.processing, route = hop.route, maxPixels = options.maxPixels, placeholders = !options.placeholders.isEmpty
        return try await pool.run { () throws(FetchError) -> ProcessedImage in
            try processor.process(bytes, with: processing, route: route, maxPixels: maxPixels, placeholders: placeholders)
        }
    }
}
