/// What each option counts in, named in one place.
///
/// - The retrieval key is the whole `ImageRequest` (`RequestPlan.retrievalKey`): every stored
///   property counts there, so two requests that differ in anything never share a retrieval.
/// - The download key is the whole `LoadRequest` but its body tap (`NotCounted`).
/// - The cache key (`EntryKey`) is the source's identity, the normalised `Processing` (every
///   stored property) and `NetworkOptions.KeyPart`; the properties below are left out of it, because
///   they change how or whether an image is fetched, never which image an entry holds.
///   `network.locationTrusted` is not among them: it changes what a redirect's other host is sent,
///   so which image that host may answer (`NetworkOptions.locationTrusted`).
///
/// A test (`RequestKeysTests`) lists the stored properties of the request types by reflection and
/// fails for one that is neither shown to change the cache key nor named here.
extension RequestPlan {
    public static let notInCacheKey = Set<String>([
        // Sources tried instead of this one: each has its own entries, under its own key.
        "lowDataSource", "alternativeSources",
        // Limits, timeouts, retries and cache policy decide whether an image comes, not which.
        "options.maxBytes", "options.maxPixels", "options.connectTimeout", "options.timeout",
        "options.retry.maxRetries", "options.retry.baseDelay", "options.retry.maxDelay", "options.retry.maxTime",
        "options.cachePolicy", "options.defaultTTL", "options.keepOriginal", "options.serveStaleWhileRevalidating",
        "options.failureTTL", "options.retryFailed",
        "options.maxRedirects",
        // Placeholders are computed from the image an entry holds and kept beside it: the same image.
        "options.placeholders",
        // A request header: a response that depends on it says so (`Vary: Save-Data`, `Vary`).
        "options.saveData",
        // Whether part of a source may be read: a result made of part has a key of its own.
        "options.partialProgressive",
        // Whom the transfer trusts, which way it goes and how fast: the same response.
        "network.tls.caFile", "network.tls.caPath", "network.tls.insecure",
        "network.proxy", "network.noProxy", "network.limitRate", "network.speedLimit", "network.speedTime",
        // Where the connection may go and at which address: whether a response comes, not which
        // (one fetched with `resolve` is never uploaded: `NetworkOptions.verifiesOrigin`).
        "network.deniedAddresses", "network.denyPrivateAddresses", "network.resolve",
    ]).union(notCounted)

    /// In no key at all (`NotCounted`): words for messages.
    public static let notCounted: Set<String> = ["network.tls.origin"]
}

/// A stored property left out of its type's synthesised `Hashable` (a download's body tap: where
/// the bytes go, not which bytes are asked for). Every `NotCounted` value equals every other.
@propertyWrapper
public struct NotCounted<Value: Sendable>: Sendable, Hashable {
    public var wrappedValue: Value
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
    public static func == (lhs: NotCounted, rhs: NotCounted) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}
