/// What a shard's digest (`prefetch --shard-dir`) is made of, besides its list: the options that
/// change what a line gives (its image, its record) or whose image it is.
///
/// The cache key's part is derived, not listed: the key of one fixed probe source asked for with the
/// request's processing and network options (`EntryKey`: every stored property of `Processing`, and
/// the headers, User-Agent, Referer, cookie, cookie engine, user, netrc file and location trust of
/// `NetworkOptions.KeyPart`), so an option added to the key is in the digest too. Credentials are
/// in it as keyed digests under a fixed secret of its own (the same on every machine, unlike the
/// cache's). Of the properties the key leaves out (`notInCacheKey`), those that change what a line
/// gives follow, one line each; the rest are named in `notInShardDigest`, and a test
/// (`RequestKeysTests`) fails for a property that is in neither.
extension RequestPlan {
    /// Left out of a shard's digest: each line's own source (the list's digest covers it), and what
    /// decides how fast, how patiently, along which path or under which trust an image comes, never
    /// which image or record a line gives once it does.
    public static let notInShardDigest = Set<String>([
        "source",
        "options.connectTimeout", "options.timeout",
        "options.retry.maxRetries", "options.retry.baseDelay", "options.retry.maxDelay", "options.retry.maxTime",
        "options.defaultTTL", "options.keepOriginal", "options.serveStaleWhileRevalidating",
        "options.failureTTL", "options.retryFailed",
        "network.tls.caFile", "network.tls.caPath", "network.tls.insecure",
        "network.proxy", "network.noProxy", "network.limitRate", "network.speedLimit", "network.speedTime",
    ]).union(notCounted)

    /// The probe the key part is made for (never fetched): any request's source will do, this one
    /// says it is none.
    public static let shardDigestProbe = Source.http("https://shard-digest.invalid/")

    /// The shard digest's secret for credentials: fixed, so every machine digests a shard alike.
    static let shardDigestCredentials = { var h = SHA256(); h.update("imgfetch shard digest 1"); return CredentialDigest(secret: h.finalize()) }()

    /// The lines `request`'s options add to a shard's digest (its source is not used): the probe's
    /// key, then each option outside the key that changes what a line gives.
    public static func shardDigestLines(of request: ImageRequest) -> [String] {
        var probe = request
        probe.source = shardDigestProbe
        let key: String
        do throws(FetchError) {
            key = try RequestPlan(probe, credentials: shardDigestCredentials).keys(for: shardDigestProbe).output.rawValue
        } catch {
            key = "unkeyed " + error.code
        }
        let o = request.options, n = request.network
        var lines = ["key=" + key]
        if let low = request.lowDataSource { lines.append("low-data-source=" + low.description) }
        lines += request.alternativeSources.map { "alt=" + $0.description }
        lines += [
            "max-bytes=\(o.maxBytes)", "max-pixels=\(o.maxPixels)", "max-redirects=\(o.maxRedirects)",
            "cache-policy=\(o.cachePolicy)", "save-data=\(o.saveData)", "partial-progressive=\(o.partialProgressive)",
            "placeholders=" + o.placeholders.map { "\($0)" }.sorted().joined(separator: ","),
            "deny-private=\(n.denyPrivateAddresses)",
        ]
        lines += n.deniedAddresses.map { "deny=\($0)" }
        lines += n.resolve.map { "resolve=" + $0 }
        return lines
    }
}
