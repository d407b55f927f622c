/// The loader's part of a hop, after the lookup chain missed: the hop's load request with what this
/// retrieval adds, then attempts until one answers or the retry policy gives up. Each attempt is a
/// fresh load (with a fresh decode while downloading), then processing and storing, or a redirect.
extension ImagePipeline {
    func load(_ hop: RequestPlan.SourcePlan, redirectedFrom: Source?, origin: Source?, stale: CachedImage?, staleKey: CacheKey,
              retrieval: inout Retrieval) async throws(FetchError) -> Hop {
        let source = hop.source
        var load = loadRequest(hop, redirectedFrom: redirectedFrom, stale: stale, retrieval: retrieval)
        // robots.txt first: a disallowed path, or an origin whose robots.txt is unavailable, is never
        // requested; then what the opt-outs decide on the response's headers (the transfer stops there).
        if let politeness, source.isNetwork {
            try await politeness.admit(source, like: load)
            load.optOutCheck = await politeness.check(source, like: load)
        }
        loader.prepare(for: source)
        processor.prepare(for: source, route: hop.route)
        var attempt = 0
        while true {
            attempt += 1
            retrieval.attempts += 1
            do throws(FetchError) {
                return try await self.attempt(load, hop, origin: origin, stale: stale, staleKey: staleKey, retrieval: retrieval)
            } catch {
                if case .hostDown = error {
                    retrieval.attempts -= 1  // its origin is marked down (OriginGate): nothing was sent
                    throw error
                }
                if case .constrained = error {
                    retrieval.attempts -= 1  // refused before any byte was sent: not an attempt
                    throw error
                }
                if case .skipped = error { throw error }   // an opt-out: never retried nor served stale
                if try await retries(after: error, attempt: attempt, source: source, retrieval: &retrieval) { continue }
                if let stale, source.isNetwork,
                   let result = staleOnError(source, staleKey, stale, error: error, options: retrieval.request.options) {
                    return .image(result)
                }
                throw error
            }
        }
    }

    /// The plan's load request with this retrieval's state: the constrained-network rule, the
    /// previous hop, the partial download slot, the meter and a stale entry's validators.
    func loadRequest(_ hop: RequestPlan.SourcePlan, redirectedFrom: Source?, stale: CachedImage?, retrieval: Retrieval) -> LoadRequest {
        let source = hop.source
        var load = hop.load
        load.allowsConstrainedNetworkAccess = retrieval.allowsConstrainedNetworkAccess
        load.redirectedFrom = redirectedFrom
        // A download that ends early is kept and resumed by the next attempt or run (HTTPLoader).
        if source.isNetwork, stale == nil { load.partial = cache.partialSlot(for: hop.keys.output) }
        load.meter = activity.meter
        let options = retrieval.request.options
        load.saveData = source.isNetwork && sendsSaveData(options)
        load.partialRead = partialReadBox(source, processing: hop.processing, options: options)
        load.clock = retrieval.clock
        if source.isNetwork, let stale {
            // Read from the cache directory: a value that is not a valid header value is never sent.
            load.etag = stale.entry.etag.flatMap(HTTPHeaders.validValue)
            load.lastModified = stale.entry.lastModified.flatMap(HTTPHeaders.validValue)
        }
        return load
    }

    /// One attempt: the load, then the error response it answered (stored when its rules allow),
    /// its redirect, or its image processed and stored.
    func attempt(_ request: LoadRequest, _ hop: RequestPlan.SourcePlan, origin: Source?, stale: CachedImage?, staleKey: CacheKey,
                 retrieval: Retrieval) async throws(FetchError) -> Hop {
        try await activity.attempt { () async throws(FetchError) -> Hop in
            try await attemptInFlight(request, hop, origin: origin, stale: stale, staleKey: staleKey, retrieval: retrieval)
        }
    }

    private func attemptInFlight(_ request: LoadRequest, _ hop: RequestPlan.SourcePlan, origin: Source?, stale: CachedImage?,
                                 staleKey: CacheKey, retrieval: Retrieval) async throws(FetchError) -> Hop {
        let source = hop.source, options = retrieval.request.options, network = retrieval.request.network
        var load = request
        // Decoding while downloading: a fresh decode per attempt, alive until the load returns.
        let streamed = processor.streamingDecode(for: source, processing: hop.processing, route: hop.route, maxPixels: options.maxPixels)
        load.bodyTap = streamed?.tap
        defer { withExtendedLifetime(streamed) {} }   // its tap's context must outlive the load
        let response = try await loader.load(load)
        if let failure = response.failure {
            storeFailure(of: source, keys: hop.keys, response: response, options: options)
            throw withheld(failure, from: source, origin: origin, network: network)
        }
        if let location = response.redirectLocation {
            return .redirect(try followRedirect(from: source, keys: hop.keys, to: location, response: response, options: options))
        }
        // Decided on the headers (a 304's, or a response the engine's check did not see): neither
        // processed nor stored.
        if let skip = load.optOutCheck?.decide(response.headers) { throw .skipped(skip) }
        return .image(try await complete(response, hop: hop, stale: stale, staleKey: staleKey, options: options, streamed: streamed,
                                         sharing: sharing(source, origin: origin, network: network),
                                         lowDataOf: retrieval.lowDataOrigin))
    }

    /// After a failed attempt: true once the wait before the next one is over (announced first);
    /// false when the policy gives up. Throws when the server asks for a wait beyond `--retry-max-time`.
    func retries(after error: FetchError, attempt: Int, source: Source, retrieval: inout Retrieval) async throws(FetchError) -> Bool {
        let retry = retrieval.request.options.retry
        switch retry.decision(beforeRetry: attempt, after: error, elapsed: retrieval.elapsedSeconds) {
        case .retry(let wait):
            var notice = RetryNotice(source: source.description, cause: error, wait: wait, retriesLeft: retry.maxRetries - attempt + 1)
            notice.hostWaits = holdOrigin(source, after: error, wait: wait)
            retrieval.retries.append(notice)
            await activity.post(notice)
            try await sleeper.sleep(seconds: wait)
            return true
        case .waitBeyondLimit(let wait):
            holdOrigin(source, after: error, wait: nil)
            if case .httpStatus(let status, _) = error, let limit = retry.maxTime {
                throw .retryAfterBeyondLimit(status: status, wait: wait, limit: limit)
            }
            return false
        case .giveUp:
            holdOrigin(source, after: error, wait: nil)
            return false
        }
    }
}
