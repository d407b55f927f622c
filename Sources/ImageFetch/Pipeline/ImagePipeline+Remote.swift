/// The remote cache tier in a retrieval (`RemoteCache`): read after the local cache missed, written
/// after a download (in the background, through its uploader). Only http(s) sources use it. With no
/// tier (`remote` nil) none of this runs; a local hit never reaches it.
extension ImagePipeline {
    /// The remote entry of the output, under any of its spellings (`EntryKeys.lookups`), verified and
    /// stored locally, or nil (a miss; a failure or an object that did not verify adds a warning to
    /// the retrieval). `path` is empty when the local store failed (`error` says why) or the entry
    /// does not fit in the local cache. With a format given, the image is fetched with its metadata.
    func remoteEntry(_ source: Source, _ keys: RequestPlan.EntryKeys, options: FetchOptions,
                     retrieval: inout Retrieval) async -> (key: CacheKey, cached: CachedImage, error: FetchError?, evicted: CacheRemoval)? {
        guard let remote, remote.mode.reads, source.isNetwork else { return nil }
        var found: (CacheKey, RemoteCache.Hit)?
        for (key, format) in keys.lookups {
            let expected = format.flatMap(ImageFormat.init(name:)) ?? (keys.format == .original ? nil : keys.format)
            let lookup = await remote.lookup(key, maxBytes: options.maxBytes, expecting: expected)
            if let warning = lookup.warning { retrieval.warnings.append(warning) }
            if let hit = lookup.hit, format == nil || hit.entry.format == format {
                found = (key, hit)
                break
            }
        }
        guard let (key, hit) = found else { return nil }
        var path: String?
        var failure: FetchError?
        // The output asked for, whatever the tier's copy says about how it was kept.
        var entry = hit.entry
        entry.kept = .requested
        var evicted = CacheRemoval()
        do {
            let stored = try cache.storeReporting(hit.bytes, entry: entry)
            path = stored.path
            evicted = stored.evicted
        } catch { failure = error }
        return (key, CachedImage(entry: entry, bytes: hit.bytes, path: path ?? ""), failure, evicted)
    }

    /// The result of a remote entry served as it is.
    func remoteResult(_ source: Source, _ key: CacheKey,
                      _ found: (key: CacheKey, cached: CachedImage, error: FetchError?, evicted: CacheRemoval),
                      state: CacheState) -> ImageResult {
        var result = makeResult(source, key, found.cached, state)
        if found.cached.path.isEmpty { result.path = nil }
        result.cacheError = found.error
        result.evicted = found.evicted
        return result
    }

    /// What the tier may receive of a response to `source` (`origin`: where its redirects began).
    enum Sharing: Sendable {
        /// Whatever a shared cache may keep (RFC 9111 §3).
        case plain
        /// Asked for with credentials: a URL's userinfo (its own or its origin's), or anything of
        /// the request's own sent to it (any header: an API key or a token may have any name; a
        /// cookie, the cookie engine (`-b`, `-c`: a cookie set during the run may be sent), `-u`, a
        /// netrc file): only what says `public`. The rule `cache push` applies
        /// (`RemoteSync.mayShare`: an entry recorded as `shaped`), so both share the same entries.
        case credentialed
        /// Fetched without the origin's identity proven (`NetworkOptions.verifiesOrigin` false:
        /// certificates not verified, or the host's address given by the request): nothing. The
        /// tier is trusted for every image it serves, so what anyone on the path could have
        /// answered never reaches it.
        case never
    }

    func sharing(_ source: Source, origin: Source?, network: NetworkOptions) -> Sharing {
        guard remote != nil else { return .plain }
        if !network.verifiesOrigin { return .never }
        let credentialed = source.hasCredentials || (origin?.hasCredentials ?? false)
            || !network.sent(to: source, origin: origin ?? source).shapesNothing
        return credentialed ? .credentialed : .plain
    }

    /// Queues the upload of a stored entry when the tier writes and a shared cache may keep it.
    func shareUpload(_ bytes: [UInt8], entry: CacheEntry, source: Source, sharing: Sharing) async {
        guard let remote, remote.mode.writes, source.isNetwork, sharing != .never,
              entry.mayBeShared(credentialed: sharing == .credentialed) else { return }
        await remote.enqueue(RemoteCache.upload(bytes: bytes, entry: entry))
    }

    /// After a 304: the refreshed metadata alone.
    func shareRevalidation(_ entry: CacheEntry, source: Source, sharing: Sharing) async {
        guard let remote, remote.mode.writes, source.isNetwork, sharing != .never,
              entry.mayBeShared(credentialed: sharing == .credentialed) else { return }
        await remote.enqueue(RemoteCache.metaUpload(entry))
    }
}
