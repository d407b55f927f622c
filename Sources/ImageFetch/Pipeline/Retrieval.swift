/// The state of one retrieval, carried with it (never global): attempts made, whether the low-data
/// fallback has been used, which alternative sources are left, and every failure so far.
struct Retrieval {
    let plan: RequestPlan
    var request: ImageRequest { plan.request }
    let started: Double
    var attempts = 0
    var fallbackUsed = false
    var isLoadingFallback = false
    /// The low-data source is being looked up in the cache after the source was not cached
    /// (`--offline`, `--cache-only`): its own miss is not a failure of its own.
    var isOfflineFallback = false
    var alternativesLeft: ArraySlice<Source>
    /// The source being tried is the request's own (planned with the request), not a fallback.
    var isOwnSource = true
    var failures: [SourceFailure] = []
    /// The last failure was a stored error response's (the cache answered it: no request).
    var storedFailure = false
    /// Warnings met on the way (the remote tier's), added to the result.
    var warnings: [String] = []
    /// The retries decided so far, as announced (`RetryNotice`).
    var retries: [RetryNotice] = []
    /// The network phases of its transfers (`LoadRequest.clock`).
    let clock = PhaseClock()

    init(plan: RequestPlan, started: Double) {
        self.plan = plan
        self.started = started
        self.alternativesLeft = plan.request.alternativeSources[...]
    }

    /// Apple's `allowsConstrainedNetworkAccess`: a request that has a low-data source may not use a
    /// constrained network, until its fallback has been taken.
    var allowsConstrainedNetworkAccess: Bool { request.lowDataSource == nil || fallbackUsed }

    /// Kingfisher's `failCurrentSource`: a constrained failure takes the low-data source, once;
    /// any other failure (or a failed fallback) moves on to the next alternative source.
    mutating func nextSource(after error: FetchError) -> Source? {
        isOwnSource = false
        if case .constrained = error, let fallback = request.lowDataSource, !fallbackUsed {
            fallbackUsed = true
            isLoadingFallback = true
            return fallback
        }
        // Offline after a low-data run: the low-data entry serves when the full one is not cached.
        if error.isNotCached, request.options.cachePolicy.avoidsNetwork, let fallback = request.lowDataSource, !fallbackUsed {
            fallbackUsed = true
            isLoadingFallback = true
            isOfflineFallback = true
            return fallback
        }
        if case .cancelled = error { return nil }
        isLoadingFallback = false
        isOfflineFallback = false
        return alternativesLeft.popFirst()
    }

    /// Loading the low-data source (not offline): its entry is stored naming the request's own
    /// output key (`CacheEntry.lowDataOf`) and indexed under it (`LowDataIndex`); nil otherwise.
    var lowDataOrigin: LowDataOrigin? {
        guard isLoadingFallback, !isOfflineFallback, let source = request.lowDataSource, source.isNetwork,
              let keys = try? plan.ownSource().keys else { return nil }
        return LowDataOrigin(keys: keys, source: source.description)
    }

    /// The single failure, or all of them when more than one source was tried.
    var finalError: FetchError {
        if failures.count == 1 { return failures[0].error }
        if failures.isEmpty { return .cancelled }
        return .sourcesExhausted(failures)
    }

    /// The record's `timing`: the transfers' phases and `processing`'s (decode, encode, store),
    /// each at most what is left of `milliseconds` (the record's `ms`), so that they never sum past it.
    func timing(adding processing: Timing, within milliseconds: Double) -> Timing {
        var timing = clock.network
        timing.decode = processing.decode
        timing.encode = processing.encode
        timing.store = processing.store
        var left = milliseconds
        for path in Timing.paths {
            timing[keyPath: path] = min(timing[keyPath: path], max(0, left))
            left -= timing[keyPath: path]
        }
        return timing.rounded
    }

    var elapsedSeconds: Double { FileSystem.monotonic() - started }
    var elapsedMilliseconds: Double { (elapsedSeconds * 1000 * 10).rounded() / 10 }
}

/// The request a low-data entry serves: its own source's keys and the low-data source, as given.
struct LowDataOrigin: Sendable {
    let keys: RequestPlan.EntryKeys
    let source: String

    /// The key the request's own output of `format` would be stored under (`EntryKeys.stored`),
    /// which the index is named by, so that every spelling that finds that output finds it.
    func original(format: String, sourceFormat: String) -> CacheKey { keys.stored(format: format, sourceFormat: sourceFormat) }
}
