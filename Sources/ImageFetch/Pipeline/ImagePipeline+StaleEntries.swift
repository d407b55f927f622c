/// What the pipeline may do with a stale entry (RFC 9111 §4.2.4, RFC 5861), and how a 304 updates one
/// (§4.3.4).
extension ImagePipeline {
    /// The rules of a stored entry: from its stored response, else (a file, or an entry of an older
    /// version) its `no-cache` flag alone.
    func rules(of entry: CacheEntry) -> Freshness {
        if let response = entry.response { return response.freshness }
        var f = Freshness(storable: true, mustRevalidate: entry.mustRevalidate, expires: entry.expires)
        f.noStale = entry.mustRevalidate
        return f
    }

    /// An explicit offline use serves any entry, saying so when the entry required revalidation.
    func servedOffline(_ source: Source, _ key: CacheKey, _ cached: CachedImage) -> ImageResult {
        var result = makeResult(source, key, cached, .stale)
        result.staleReason = "offline"
        if source.isNetwork, rules(of: cached.entry).noStale {
            result.warnings.append("\(source): served offline, but the entry required revalidation (must-revalidate or no-cache)")
        }
        return result
    }

    /// `--offline` or `--cache-only` after the request's own source was not cached: the entry stored
    /// from its low-data source in an earlier run, through the cache's low-data index under any
    /// spelling of the output (`EntryKeys.lookups`; any age offline, fresh only with
    /// `--cache-only`); nil when there is none.
    func indexedLowData(_ plan: RequestPlan) -> ImageResult? {
        let options = plan.request.options
        guard options.cachePolicy.avoidsNetwork, let keys = try? plan.ownSource().keys,
              let found = keys.lookups.lazy.compactMap({ candidate in
                  self.cache.lowDataEntry(for: candidate.key).flatMap { candidate.format == nil || $0.cached.entry.format == candidate.format ? $0 : nil }
              }).first,
              let source = try? Source(parsing: found.source), source.isNetwork else { return nil }
        let key = CacheKey(digest: found.cached.entry.key)
        if options.cachePolicy == .offline { return servedOffline(source, key, found.cached) }
        guard isFresh(found.cached.entry, source: source, now: FileSystem.now(), options: options) else { return nil }
        return makeResult(source, key, found.cached, .hit)
    }

    /// Within a `stale-while-revalidate` window: served stale at once; the caller revalidates it
    /// afterwards (`needsRevalidation`). Never for `must-revalidate` / `no-cache` entries.
    func staleWhileRevalidate(_ source: Source, _ key: CacheKey, _ stale: CachedImage, now: Double,
                              options: FetchOptions) -> ImageResult? {
        let rules = rules(of: stale.entry)
        guard !rules.noStale, rules.staleWhileRevalidate > 0, let expires = stale.entry.expires,
              now < expires + rules.staleWhileRevalidate,
              Vary.matches(stale.entry.vary, saveData: sendsSaveData(options)) else { return nil }
        var result = makeResult(source, key, stale, .stale)
        result.staleReason = "stale-while-revalidate"
        result.needsRevalidation = true
        return result
    }

    /// After a failed load: the stale entry within its `stale-if-error` window (a 500, 502, 503, 504 or
    /// no response at all), or, when the network is unreachable, any stale entry that does not require
    /// revalidation. `must-revalidate` / `no-cache` entries never.
    func staleOnError(_ source: Source, _ key: CacheKey, _ stale: CachedImage, error: FetchError,
                      options: FetchOptions) -> ImageResult? {
        let rules = rules(of: stale.entry)
        guard !rules.noStale, Vary.matches(stale.entry.vary, saveData: sendsSaveData(options)) else { return nil }
        let now = FileSystem.now()
        if rules.staleIfError > 0, let expires = stale.entry.expires, now < expires + rules.staleIfError, error.isServerOrConnectionError {
            var result = makeResult(source, key, stale, .stale)
            result.staleReason = "stale-if-error"
            result.warnings.append("\(source): \(error.message); serving the cached copy (stale-if-error)")
            return result
        }
        if error.isNetworkUnreachable {
            var result = makeResult(source, key, stale, .stale)
            result.staleReason = "network unreachable"
            result.warnings.append("\(source): network unreachable (\(error.message)); serving an expired cached copy")
            return result
        }
        return nil
    }

    /// The entry after a 304: the 304's header fields replace the stored ones, the rest are kept, and
    /// freshness is computed again from the result.
    func revalidated(_ entry: CacheEntry, by response: LoadResponse, defaultTTL: Double, saveData: Bool = false) -> CacheEntry {
        var entry = entry
        var base = entry.response
        if base == nil {
            var fields: [(name: String, value: String)] = []
            if let etag = entry.etag { fields.append((name: "etag", value: etag)) }
            if let lm = entry.lastModified { fields.append((name: "last-modified", value: lm)) }
            base = StoredResponse(status: 200, requestTime: response.requestTime, responseTime: response.responseTime,
                                  defaultTTL: defaultTTL, headers: HTTPHeaders(fields))
        }
        guard let base else { return entry }
        let updated = base.updated(with: response.headers, requestTime: response.requestTime,
                                   responseTime: response.responseTime, defaultTTL: defaultTTL)
        let f = updated.freshness
        entry.response = updated
        entry.expires = f.expires
        entry.mustRevalidate = f.mustRevalidate
        entry.etag = updated.headers.validator("etag") ?? entry.etag
        entry.lastModified = updated.headers.validator("last-modified") ?? entry.lastModified
        entry.vary = Vary.names(updated.headers).flatMap { Vary.selection(for: $0, saveData: saveData) }
        return entry
    }

    /// Revalidates the entry of `request` with its origin (after a stale-while-revalidate result),
    /// never serving stale: a 304 refreshes it, a 200 replaces it. The result is the fresh outcome.
    public func revalidate(_ request: ImageRequest) async -> Result<ImageResult, RetrievalFailure> {
        var request = request
        request.options.serveStaleWhileRevalidating = false
        request.alternativeSources = []
        request.lowDataSource = nil
        return await retrieve(request)
    }
}

extension FetchError {
    /// RFC 5861's errors: a 500, 502, 503 or 504, or no response at all.
    var isServerOrConnectionError: Bool {
        switch self {
        case .httpStatus(let code, _): [500, 502, 503, 504].contains(code)
        case .unreachable, .connection, .timeout: true
        default: false
        }
    }
}

extension ImagePipeline {
    /// Low-data mode's `Save-Data: on` (a client hint servers and CDNs answer with lighter images):
    /// sent to origins when the network is constrained, unless `--no-save-data`. Never to the tier.
    func sendsSaveData(_ options: FetchOptions) -> Bool { options.saveData && network.isConstrained }
}
