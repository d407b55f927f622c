/// Failures worded for their real cause: a source that is cached but stale is not "not cached",
/// and a 401 from a host a redirect led to is a login withheld, not a wrong password.
extension ImagePipeline {
    /// The failure of a retrieval the network may not serve: `stale`, when there is one, was
    /// cached but not fresh enough for `--cache-only`.
    func notCached(_ stale: CachedImage?, now: Double) -> FetchError {
        guard let stale else { return .notCached }
        return .cachedButStale(expiredAgo: stale.entry.expires.map { now - $0 })
    }

    /// `failure` of a hop to `source` reached by redirects from `origin`: a 401 there,
    /// when the login (`network`'s identity) was withheld from it, is `loginWithheld`.
    func withheld(_ failure: FetchError, from source: Source, origin: Source?, network: NetworkOptions) -> FetchError {
        guard case .httpStatus(let status, _) = failure, status == 401, let origin,
              network.carriesIdentity, network.sent(to: source, origin: origin) != network,
              let host = source.origin else { return failure }
        return .loginWithheld(status: status, host: host)
    }
}
