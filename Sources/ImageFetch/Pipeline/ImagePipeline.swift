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

    public init(cache: any ImageCaching, memoryCache: MemoryCache? = MemoryCache(), loader: any DataLoading = SourceLoader(),
                processor: any ImageProcessing = VipsProcessor(), pool: ProcessingPool = ProcessingPool(),
                sleeper: any Sleeping = TaskSleeper(), remote: RemoteCache? = nil) {
        self.remote = remote
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
        while let source = current {
            let before = retrieval.attempts
            do {
                var result = withPlaceholders(try await retrieve(source: source, retrieval: &retrieval), request.options)
                result.originalSource = request.source
                result.lowData = retrieval.isLoadingFallback
                result.attempts = retrieval.attempts
                result.milliseconds = retrieval.elapsedMilliseconds
                result.timing = retrieval.timing(adding: result.timing, within: result.milliseconds)
                if !retrieval.warnings.isEmpty { result.warnings = retrieval.warnings + result.warnings }
                result.retries = retrieval.retries
                return .success(result)
            } catch {
                retrieval.failures.append(SourceFailure(source: source.description, error: error, attempts: retrieval.attempts - before))
                current = retrieval.nextSource(after: error)
            }
        }
        var failure = RetrievalFailure(error: retrieval.finalError, attempts: retrieval.attempts,
                                       milliseconds: retrieval.elapsedMilliseconds, key: plan.failureKey)
        failure.warnings = retrieval.warnings
        failure.timing = retrieval.timing(adding: Timing(), within: failure.milliseconds)
        failure.retries = retrieval.retries
        return .failure(failure)
    }

    /// One source, following its redirects (`ImagePipeline+Redirects`): each hop is a response of
    /// its own, reused from the cache only as its own rules allow.
    func retrieve(source: Source, retrieval: inout Retrieval) async throws(FetchError) -> ImageResult {
        var current = source
        var previous: Source?
        var hops = 0
        while true {
            switch try await retrieveHop(current, redirectedFrom: previous, origin: source, retrieval: &retrieval) {
            case .image(var result):
                result.source = source
                return result
            case .redirect(let target):
                hops += 1
                guard hops <= retrieval.request.options.maxRedirects else {
                    throw .redirectRefused("more than \(retrieval.request.options.maxRedirects) redirects")
                }
                previous = current
                current = target
            }
        }
    }

    /// One hop: its cache entry (or a stored redirect), else (when allowed) the loader with retries,
    /// then processing and storing, or the redirect it answered.
    /// `origin`: the source whose redirects led here; identity goes to its origin only
    /// (`NetworkOptions.sent(to:origin:)`).
    func retrieveHop(_ source: Source, redirectedFrom: Source?, origin: Source? = nil,
                     retrieval: inout Retrieval) async throws(FetchError) -> Hop {
        let plan = retrieval.plan
        let request = plan.request
        let processing = plan.processing
        let options = request.options
        // A data: URL's size is known without decoding it: refused before any work.
        if case .data(let payload) = source, Int64(payload.byteCount) > options.maxBytes {
            throw .tooLarge(DataURL.tooLargeMessage(payload, options.maxBytes))
        }
        let keys = try plan.keys(for: source)
        var key = keys.output
        let now = FileSystem.now()
        var stale: CachedImage?

        if options.cachePolicy != .forceRefresh {
            if let found = cachedOutput(keys, source: source, now: now) {
                key = found.key
                if found.fresh { return .image(makeResult(source, key, found.cached, .hit)) }
                if options.cachePolicy == .offline { return .image(servedOffline(source, key, found.cached)) }
                stale = found.cached
            }
            if stale == nil, let target = storedRedirect(of: source, keys: keys, now: now, offline: options.cachePolicy == .offline) {
                return .redirect(target)
            }
            if let failure = storedFailure(of: source, keys: keys, newerThan: stale?.entry.created, now: now) { throw failure }
            if stale == nil, !processing.isOriginal,
               let original = cache.lookup(keys.original),
               isFresh(original.entry, source: source, now: now) || options.cachePolicy == .offline {
                return .image(try await derive(from: original, source: source, keys: keys, processing: processing, options: options,
                                               sharing: sharing(source, origin: origin, network: request.network)))
            }
            // Memory and disk missed: the remote tier, whose entry is then a local one.
            if stale == nil, let found = await remoteEntry(source, keys, options: options, retrieval: &retrieval) {
                key = found.key
                if isFresh(found.cached.entry, source: source, now: now) {
                    if !found.cached.path.isEmpty { memoryCache?.set(found.cached, for: key) }
                    return .image(remoteResult(source, key, found, state: .remote))
                }
                if options.cachePolicy == .offline {
                    var result = servedOffline(source, key, found.cached)
                    if found.cached.path.isEmpty { result.path = nil }
                    result.cacheError = found.error
                    result.evicted = found.evicted
                    return .image(result)
                }
                stale = found.cached
            }
        }
        if options.cachePolicy == .cacheOnly || options.cachePolicy == .offline { throw notCached(stale, now: now) }
        if let stale, source.isNetwork, options.serveStaleWhileRevalidating,
           let result = staleWhileRevalidate(source, key, stale, now: now) {
            return .image(result)
        }

        var load = LoadRequest(source: source, allowsConstrainedNetworkAccess: retrieval.allowsConstrainedNetworkAccess,
                               connectTimeout: options.connectTimeout, timeout: options.timeout,
                               maxBytes: options.maxBytes,
                               network: request.network.sent(to: source, origin: origin ?? source))
        load.redirectedFrom = redirectedFrom
        load.errorResponses = source.isNetwork
        // A download that ends early is kept and resumed by the next attempt or run (HTTPLoader).
        if source.isNetwork, stale == nil { load.partial = cache.partialSlot(for: keys.output) }
        load.meter = activity.meter
        load.clock = retrieval.clock
        if source.isNetwork, let stale {
            // Read from the cache directory: a value that is not a valid header value is never sent.
            load.etag = stale.entry.etag.flatMap(HTTPHeaders.validValue)
            load.lastModified = stale.entry.lastModified.flatMap(HTTPHeaders.validValue)
        }
        loader.prepare(for: source)
        processor.prepare(for: source, processing: processing)
        var attempt = 0
        while true {
            attempt += 1
            retrieval.attempts += 1
            do throws(FetchError) {
                // Decoding while downloading: a fresh decode per attempt, alive until the load returns.
                let streamed = processor.streamingDecode(for: source, processing: processing, maxPixels: options.maxPixels)
                load.bodyTap = streamed?.tap
                defer { withExtendedLifetime(streamed) {} }   // its tap's context must outlive the load
                let response = try await loader.load(load)
                if let failure = response.failure {
                    storeFailure(of: source, keys: keys, response: response, options: options)
                    throw withheld(failure, from: source, origin: origin, network: request.network)
                }
                if let location = response.redirectLocation {
                    return .redirect(try followRedirect(from: source, keys: keys, to: location, response: response, options: options))
                }
                return .image(try await complete(response, source: source, keys: keys, stale: stale, staleKey: key, options: options,
                                                 processing: processing, network: request.network, streamed: streamed,
                                                 sharing: sharing(source, origin: origin, network: request.network)))
            } catch {
                if case .constrained = error {
                    retrieval.attempts -= 1  // refused before any byte was sent: not an attempt
                    throw error
                }
                switch options.retry.decision(beforeRetry: attempt, after: error, elapsed: retrieval.elapsedSeconds) {
                case .retry(let wait):
                    let notice = RetryNotice(source: source.description, cause: error, wait: wait,
                                             retriesLeft: options.retry.maxRetries - attempt + 1)
                    retrieval.retries.append(notice)
                    await activity.post(notice)
                    try await sleeper.sleep(seconds: wait)
                    continue
                case .waitBeyondLimit(let wait):
                    if case .httpStatus(let status, _) = error, let limit = options.retry.maxTime {
                        throw .retryAfterBeyondLimit(status: status, wait: wait, limit: limit)
                    }
                case .giveUp:
                    break
                }
                if let stale, source.isNetwork, let result = staleOnError(source, key, stale, error: error) {
                    return .image(result)
                }
                throw error
            }
        }
    }

    /// Turns a loader response into a stored, processed image (or refreshes a revalidated entry).
    func complete(_ response: LoadResponse, source: Source, keys: RequestPlan.EntryKeys, stale: CachedImage?, staleKey: CacheKey,
                  options: FetchOptions, processing: Processing, network: NetworkOptions = NetworkOptions(),
                  streamed: (any StreamingDecode)? = nil, sharing: Sharing = .plain) async throws(FetchError) -> ImageResult {
        let now = FileSystem.now()
        var response = response
        if response.responseTime <= 0 { response.responseTime = now }
        if response.requestTime <= 0 || response.requestTime > response.responseTime { response.requestTime = response.responseTime }
        if response.notModified, let stale {
            let entry = revalidated(stale.entry, by: response, defaultTTL: options.defaultTTL)
            var result = makeResult(source, staleKey, CachedImage(entry: entry, bytes: stale.bytes, path: stale.path), .revalidated)
            let storing = FileSystem.monotonic()
            do { try cache.refresh(entry) } catch { result.cacheError = error }
            result.timing.store = Timing.since(storing)
            await shareRevalidation(entry, source: source, sharing: sharing)
            return result
        }
        var stored: StoredResponse?
        let freshness: Freshness
        if source.isNetwork {
            let exchange = StoredResponse(status: response.status, requestTime: response.requestTime,
                                          responseTime: response.responseTime, defaultTTL: options.defaultTTL,
                                          headers: response.headers)
            stored = exchange
            freshness = exchange.freshness
        } else {
            freshness = Freshness(storable: true, mustRevalidate: false, expires: nil)
        }
        let bytes = response.bytes
        var decoded: ProcessedImage?
        var timing = Timing()
        var started = FileSystem.monotonic()
        if let streamed {
            // Done during the download: only its last steps are left, so no processing slot is taken.
            decoded = await pool.wait { streamed.result(for: bytes) }
            timing.encode = Timing.since(started)
        }
        var image: ProcessedImage
        if let decoded {
            image = decoded
        } else {
            started = FileSystem.monotonic()
            image = try await process(bytes, processing, maxPixels: options.maxPixels, placeholders: !options.placeholders.isEmpty)
            timing.decode = Timing.since(started)
        }
        if !options.placeholders.isEmpty && image.placeholders == nil {
            started = FileSystem.monotonic()
            image.placeholders = Placeholders.decoding(image.bytes, maxPixels: options.maxPixels)
            timing.encode += Timing.since(started)
        }
        let key = keys.stored(format: image.format, sourceFormat: image.sourceFormat)
        var result = ImageResult(source: source, key: key, cache: .miss, image: image, downloadedBytes: response.downloadedBytes)
        result.timing = timing
        guard freshness.storable else { return result }
        started = FileSystem.monotonic()
        let validator = response.fileValidator ?? response.headers.validator("etag")
        var entry = CacheEntry(key: key.rawValue, identity: keys.identity,
                               source: source.description,
                               variant: keys.variant(of: key),
                               format: image.format, width: image.width, height: image.height,
                               bytes: Int64(image.bytes.count), checksum: "", created: now, expires: freshness.expires,
                               etag: validator, lastModified: response.headers.validator("last-modified"),
                               mustRevalidate: freshness.mustRevalidate)
        entry.response = stored
        entry.vary = stored.flatMap { Vary.names($0.headers) }.flatMap(Vary.selection)
        entry.shaped = keys.shaped
        entry.placeholders = image.placeholders
        do {
            // The original first: when the size limit evicts, the variant asked for is the newest.
            // The output may be the original itself (`-f X` of a source in X, no resize): stored once.
            if options.keepOriginal && key != keys.original {
                var original = entry.describing(keys.original, variant: Processing.original.identifier,
                                                format: image.sourceFormat, width: image.sourceWidth,
                                                height: image.sourceHeight, bytes: bytes.count)
                // Kept only to derive other sizes later: evicted before any output asked for.
                original.kept = .byproduct
                result.evicted.add(try cache.storeReporting(bytes, entry: original).evicted)
                await shareUpload(bytes, entry: original, source: source, sharing: sharing)
            }
            let stored = try cache.storeReporting(image.bytes, entry: entry)
            result.path = stored.path
            result.evicted.add(stored.evicted)
            if let path = result.path { memoryCache?.set(CachedImage(entry: entry, bytes: image.bytes, path: path), for: key) }
        } catch {
            result.cacheError = error
        }
        result.timing.store = Timing.since(started)
        await shareUpload(image.bytes, entry: entry, source: source, sharing: sharing)
        return result
    }

    /// A new variant from cached original bytes: no network.
    func derive(from original: CachedImage, source: Source, keys: RequestPlan.EntryKeys, processing: Processing,
                options: FetchOptions, sharing: Sharing = .plain) async throws(FetchError) -> ImageResult {
        var started = FileSystem.monotonic()
        let image = try await process(original.bytes, processing, maxPixels: options.maxPixels, placeholders: !options.placeholders.isEmpty)
        var timing = Timing()
        timing.decode = Timing.since(started)
        let key = keys.stored(format: image.format, sourceFormat: image.sourceFormat)
        // The output is the original itself: nothing new to store, but it is now asked for.
        if key == keys.original {
            cache.promote(original.entry)
            return makeResult(source, key, original, .hit)
        }
        var entry = original.entry.describing(key, variant: keys.variant(of: key), format: image.format, width: image.width,
                                              height: image.height, bytes: image.bytes.count)
        entry.placeholders = image.placeholders
        entry.created = FileSystem.now()
        entry.kept = .requested
        var result = ImageResult(source: source, key: key, cache: .derived, image: image)
        result.timing = timing
        started = FileSystem.monotonic()
        do {
            let stored = try cache.storeReporting(image.bytes, entry: entry)
            result.path = stored.path
            result.evicted = stored.evicted
        } catch { result.cacheError = error }
        result.timing.store = Timing.since(started)
        await shareUpload(image.bytes, entry: entry, source: source, sharing: sharing)
        return result
    }

    /// The output's entry under any of its spellings (`EntryKeys.lookups`), memory first: the first
    /// one found, fresh or not.
    func cachedOutput(_ keys: RequestPlan.EntryKeys, source: Source, now: Double) -> (key: CacheKey, cached: CachedImage, fresh: Bool)? {
        for (candidate, format) in keys.lookups {
            if let hit = memoryCache?.value(for: candidate), format == nil || hit.entry.format == format,
               isFresh(hit.entry, source: source, now: now) {
                return (candidate, hit, true)
            }
            guard let cached = cache.lookup(candidate), format == nil || cached.entry.format == format else { continue }
            let fresh = isFresh(cached.entry, source: source, now: now)
            if fresh {
                // The original kept as a by-product is asked for as it is (no processing, or a format
                // it already has): from now on it is an output asked for.
                if cached.entry.kept == .byproduct && candidate == keys.original { cache.promote(cached.entry) }
                memoryCache?.set(cached, for: candidate)
            }
            return (candidate, cached, fresh)
        }
        return nil
    }

    /// The request's image when a cache holds it fresh: what `retrieve` would return, found without
    /// the network, a download or any shared work (a batch hands hits out before coalescing).
    public func freshHit(_ plan: RequestPlan) -> ImageResult? {
        let request = plan.request, source = request.source
        guard request.options.cachePolicy != .forceRefresh else { return nil }
        if case .data(let payload) = source, Int64(payload.byteCount) > request.options.maxBytes { return nil }
        let started = FileSystem.monotonic()
        guard let keys = try? plan.keys(for: source), let found = cachedOutput(keys, source: source, now: FileSystem.now()),
              found.fresh else { return nil }
        var result = withPlaceholders(makeResult(source, found.key, found.cached, .hit), request.options)
        result.milliseconds = ((FileSystem.monotonic() - started) * 1000 * 10).rounded() / 10
        return result
    }

    /// Fresh means usable without asking anyone: an unexpired HTTP entry, a local file whose mtime and
    /// size still match, or a data: URL (its key is the digest of its bytes).
    func isFresh(_ entry: CacheEntry, source: Source, now: Double) -> Bool {
        switch source {
        case .http: entry.isFresh(at: now)
        case .file(let path): entry.etag == FileLoader.validator(forPath: path)
        case .data: true
        }
    }

    func makeResult(_ source: Source, _ key: CacheKey, _ cached: CachedImage, _ state: CacheState) -> ImageResult {
        let e = cached.entry
        var image = ProcessedImage(bytes: cached.bytes, width: e.width, height: e.height, format: e.format)
        image.placeholders = e.placeholders
        return ImageResult(source: source, key: key, path: cached.path, cache: state, image: image)
    }

    /// Decodes, downsamples and encodes on the processing pool.
    func process(_ bytes: [UInt8], _ processing: Processing, maxPixels: Int64, placeholders: Bool = false) async throws(FetchError) -> ProcessedImage {
        let processor = self.processor
        return try await pool.run { () throws(FetchError) -> ProcessedImage in
            try processor.process(bytes, with: processing, maxPixels: maxPixels, placeholders: placeholders)
        }
    }
}
