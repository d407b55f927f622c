/// The remote cache tier in a retrieval (`RemoteCache`): read after the local cache missed, written
/// after a download (in the background, through its uploader). Only http(s) sources use it. With no
/// tier (`remote` nil) none of this runs; a local hit never reaches it.
extension ImagePipeline {
    /// The remote entry of `key`, verified and stored locally, or nil (a miss; a failure or an object
    /// that did not verify adds a warning to the retrieval). `path` is empty when the local store
    /// failed (`error` says why) or the entry does not fit in the local cache. `format`: the
    /// processing's output format (when it is not `original`, the image is fetched with its metadata).
    func remoteEntry(_ source: Source, _ key: CacheKey, format: ImageFormat = .original, options: FetchOptions,
                     retrieval: inout Retrieval) async -> (cached: CachedImage, error: FetchError?)? {
        guard let remote, remote.mode.reads, source.isNetwork else { return nil }
        let lookup = await remote.lookup(key, maxBytes: options.maxBytes, expecting: format == .original ? nil : format)
        if let warning = lookup.warning { retrieval.warnings.append(warning) }
        guard let hit = lookup.hit else { return nil }
        var path: String?
        var failure: FetchError?
        do { path = try cache.store(hit.bytes, entry: hit.entry) } catch { failure = error }
        return (CachedImage(entry: hit.entry, bytes: hit.bytes, path: path ?? ""), failure)
    }

    /// The result of a remote entry served as it is.
    func remoteResult(_ source: Source, _ key: CacheKey, _ found: (cached: CachedImage, error: FetchError?),
                      state: CacheState) -> ImageResult {
        var result = makeResult(source, key, found.cached, state)
        if found.cached.path.isEmpty { result.path = nil }
        result.cacheError = found.error
        return result
    }

    /// Whether the response of `source` was asked for with credentials: a URL's userinfo (its own or
    /// its origin's), or anything of the request's own sent to it (any header: an API key or a token
    /// may have any name; a cookie, `-u`, a netrc file). The rule `cache push` applies
    /// (`RemoteSync.mayShare`: a key other than the plain one), so both share the same entries.
    func isCredentialed(_ source: Source, origin: Source?, network: NetworkOptions) -> Bool {
        source.hasCredentials || (origin?.hasCredentials ?? false)
            || !network.sent(to: source, origin: origin ?? source).shapesNothing
    }

    /// Queues the upload of a stored entry when the tier writes and a shared cache may keep it.
    func shareUpload(_ bytes: [UInt8], entry: CacheEntry, source: Source, credentialed: Bool) async {
        guard let remote, remote.mode.writes, source.isNetwork, entry.mayBeShared(credentialed: credentialed) else { return }
        await remote.enqueue(RemoteCache.upload(bytes: bytes, entry: entry))
    }

    /// After a 304: the refreshed metadata alone.
    func shareRevalidation(_ entry: CacheEntry, source: Source, credentialed: Bool) async {
        guard let remote, remote.mode.writes, source.isNetwork, entry.mayBeShared(credentialed: credentialed) else { return }
        await remote.enqueue(RemoteCache.metaUpload(entry))
    }
}
