/// The lookup chain of one hop, in order: memory, disk (under any spelling of the output), a stored
/// redirect, a stored failure, the original kept (a new variant made from it), the remote tier.
/// The first that answers ends the hop; else what it found stale goes on to the loader.
extension ImagePipeline {
    /// Where the lookup chain left a hop.
    enum Lookup {
        /// The hop's answer: an image, a redirect to follow.
        case answer(Hop)
        /// Nothing usable as it is: the key the output is under, and the stale entry found there.
        case missed(key: CacheKey, stale: CachedImage?)
    }

    func lookUp(_ hop: RequestPlan.SourcePlan, origin: Source?, now: Double,
                retrieval: inout Retrieval) async throws(FetchError) -> Lookup {
        let source = hop.source, keys = hop.keys, options = retrieval.request.options
        let offline = options.cachePolicy == .offline
        var key = keys.output
        var stale: CachedImage?
        if let found = cachedOutput(keys, source: source, now: now, options: options) {
            key = found.key
            if found.fresh { return .answer(.image(makeResult(source, key, found.cached, .hit))) }
            if offline { return .answer(.image(servedOffline(source, key, found.cached))) }
            stale = found.cached
        }
        if stale == nil, let found = cachedPartial(keys, source: source, processing: hop.processing, now: now, options: options) {
            return .answer(.image(found))
        }
        if stale == nil, let target = storedRedirect(of: source, keys: keys, now: now, offline: offline) {
            return .answer(.redirect(target))
        }
        if let failure = storedFailure(of: source, keys: keys, newerThan: stale?.entry.created, now: now, options: options) {
            retrieval.storedFailure = true
            throw failure
        }
        guard stale == nil else { return .missed(key: key, stale: stale) }
        if !hop.processing.isOriginal, let original = cache.lookup(keys.original),
           isFresh(original.entry, source: source, now: now, options: options) || offline {
            return .answer(.image(try await derive(from: original, hop: hop, options: options,
                                                   sharing: sharing(source, origin: origin, network: retrieval.request.network))))
        }
        return await tierEntry(hop, now: now, retrieval: &retrieval)
    }

    /// Memory and disk missed: the remote tier, whose entry is then a local one.
    func tierEntry(_ hop: RequestPlan.SourcePlan, now: Double, retrieval: inout Retrieval) async -> Lookup {
        let source = hop.source, options = retrieval.request.options
        guard let found = await remoteEntry(source, hop.keys, options: options, retrieval: &retrieval) else {
            return .missed(key: hop.keys.output, stale: nil)
        }
        if isFresh(found.cached.entry, source: source, now: now, options: options) {
            if !found.cached.path.isEmpty { memoryCache?.set(found.cached, for: found.key) }
            return .answer(.image(remoteResult(source, found.key, found, state: .remote)))
        }
        if options.cachePolicy == .offline {
            var result = servedOffline(source, found.key, found.cached)
            if found.cached.path.isEmpty { result.path = nil }
            result.cacheError = found.error
            result.evicted = found.evicted
            return .answer(.image(result))
        }
        return .missed(key: found.key, stale: found.cached)
    }

    /// The output's entry under any of its spellings (`EntryKeys.lookups`), memory first: the first
    /// one found, fresh or not.
    func cachedOutput(_ keys: RequestPlan.EntryKeys, source: Source, now: Double,
                      options: FetchOptions) -> (key: CacheKey, cached: CachedImage, fresh: Bool)? {
        for (candidate, format) in keys.lookups {
            if let hit = memoryCache?.value(for: candidate), format == nil || hit.entry.format == format,
               isFresh(hit.entry, source: source, now: now, options: options) {
                return (candidate, hit, true)
            }
            guard let cached = cache.lookup(candidate), format == nil || cached.entry.format == format else { continue }
            let fresh = isFresh(cached.entry, source: source, now: now, options: options)
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
        let started = FileSystem.monotonic()
        guard let keys = try? plan.ownSource().keys, let found = cachedOutput(keys, source: source, now: FileSystem.now(), options: request.options),
              found.fresh else { return nil }
        var result = withPlaceholders(makeResult(source, found.key, found.cached, .hit), request.options)
        result.milliseconds = ((FileSystem.monotonic() - started) * 1000 * 10).rounded() / 10
        return result
    }
}
