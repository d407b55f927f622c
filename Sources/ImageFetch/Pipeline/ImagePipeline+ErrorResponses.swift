/// Error responses (a 404, a 503, ...) are cached like any other response, by their own rules
/// (RFC 9111): with explicit freshness (`max-age`, `Expires`), or for a heuristically cacheable status
/// (404, 405, 410, 414, 501) with a `Last-Modified`, a tenth of its age (at most the default lifetime);
/// a 404 or 410 without one gets `FetchOptions.failureTTL`. Never past `no-store`, `no-cache` or
/// `must-revalidate`. While such an entry is fresh, a retrieval fails with the same status without
/// asking the server (`FetchOptions.retryFailed` asks again).
/// Stored under `EntryKeys.response`, format `status`, its bytes the status code.
extension ImagePipeline {
    /// The failure a fresh stored error response of `source` stands for; nil when there is none, it is
    /// stale, or it is older than the image entry `newerThan` was created.
    func storedFailure(of source: Source, keys: RequestPlan.EntryKeys, newerThan imageCreated: Double?, now: Double,
                       options: FetchOptions) -> FetchError? {
        guard source.isNetwork, !options.retryFailed, let stored = cache.lookup(keys.response),
              stored.entry.format == CacheEntry.statusFormat, stored.entry.isFresh(at: now),
              stored.entry.created > (imageCreated ?? -Double.infinity),
              let status = stored.entry.response?.status else { return nil }
        return .httpStatus(status, retryAfter: nil)
    }

    /// Stores an error response when its rules allow (never one that must be revalidated).
    func storeFailure(of source: Source, keys: RequestPlan.EntryKeys, response: LoadResponse, options: FetchOptions) {
        guard source.isNetwork, response.status >= 300 else { return }
        let now = FileSystem.now()
        let stored = StoredResponse(status: response.status, requestTime: response.requestTime > 0 ? response.requestTime : now,
                                    responseTime: response.responseTime > 0 ? response.responseTime : now,
                                    defaultTTL: options.defaultTTL, headers: response.headers)
        let freshness = Freshness.evaluate(status: stored.status, headers: response.headers, requestTime: stored.requestTime,
                                           responseTime: stored.responseTime, defaultTTL: options.defaultTTL,
                                           failureTTL: options.failureTTL)
        guard freshness.storable, !freshness.mustRevalidate, let expires = freshness.expires, expires > now else { return }
        let bytes = Array(String(response.status).utf8)
        var entry = CacheEntry(key: keys.response.rawValue, identity: keys.identity, source: source.description,
                               variant: CacheEntry.statusFormat, format: CacheEntry.statusFormat, width: 0, height: 0,
                               bytes: Int64(bytes.count), checksum: "", created: now, expires: expires)
        entry.response = stored
        _ = try? cache.store(bytes, entry: entry)   // not storable: the failure is reported all the same
    }
}
