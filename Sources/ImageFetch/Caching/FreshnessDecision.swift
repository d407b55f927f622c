/// Why an entry is fresh or stale right now (`cache info`): the stored response's rules, its current
/// age (RFC 9111 §4.2.3: the age it had on arrival plus the time since) and its lifetime.
public struct FreshnessDecision: Sendable, Equatable {
    public var fresh: Bool
    /// Seconds; nil when the entry has no stored response (a file, a data: URL, an older version's entry).
    public var currentAge: Double?
    public var lifetime: Double?
    /// The HTTP status and the header fields kept with the entry.
    public var status: Int?
    public var headers: HTTPHeaders
    /// One sentence: the lifetime's basis and the verdict, e.g.
    /// `fresh: max-age=3600; age 120 s of 3600 s` or `stale: must-revalidate, expired 30 s ago`.
    public var reason: String
}

extension CacheEntry {
    /// The decision at `now`, as the pipeline takes it.
    public func freshnessDecision(at now: Double) -> FreshnessDecision {
        let fresh = isFresh(at: now)
        guard let response else {
            let reason: String
            if mustRevalidate { reason = "stale: no-cache, revalidated before every use" }
            else if let expires { reason = (fresh ? "fresh: expires in \(seconds(expires - now))" : "stale: expired \(seconds(now - expires)) ago") }
            else { reason = "fresh: no expiry (a local file is checked by its size and mtime)" }
            return FreshnessDecision(fresh: fresh, currentAge: nil, lifetime: nil, status: nil, headers: HTTPHeaders(), reason: reason)
        }
        let rules = response.freshness
        let age = rules.initialAge + max(0, now - response.responseTime)
        var parts = [rules.basis]
        if isRedirect { parts.append("a \(response.status) redirect") }
        var verdict: String
        if rules.mustRevalidate {
            verdict = "stale: no-cache, revalidated before every use"
        } else if vary != nil && !Vary.matches(vary) {
            verdict = "stale: Vary selects request headers imgfetch no longer sends alike"
        } else if fresh {
            verdict = "fresh: age \(seconds(age)) of \(seconds(rules.lifetime))"
        } else {
            verdict = "stale: age \(seconds(age)) exceeds \(seconds(rules.lifetime))"
            if rules.noStale { verdict += "; must-revalidate: never served stale but with --offline" }
            else {
                if rules.staleWhileRevalidate > 0 { verdict += "; stale-while-revalidate \(seconds(rules.staleWhileRevalidate))" }
                if rules.staleIfError > 0 { verdict += "; stale-if-error \(seconds(rules.staleIfError))" }
            }
        }
        parts.append(verdict)
        return FreshnessDecision(fresh: fresh, currentAge: age, lifetime: rules.lifetime, status: response.status,
                                 headers: response.headers, reason: parts.filter { !$0.isEmpty }.joined(separator: "; "))
    }
}

private func seconds(_ value: Double) -> String {
    let v = max(0, value)
    return v >= 2_147_483_648 ? "2^31 s" : "\(Int(v.rounded(.down))) s"
}
