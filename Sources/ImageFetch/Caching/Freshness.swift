/// HTTP caching rules of a private cache (RFC 9111): whether a response may be stored, how long it
/// stays fresh (§4.2.1 lifetime, §4.2.3 age), and what may be done with it once stale.
///
/// A private cache reads `max-age` and ignores `s-maxage` and `proxy-revalidate` (shared caches only).
/// Without explicit freshness (`max-age`, `Expires`) a response of a heuristically cacheable status
/// (RFC 9110 §15.1), or one marked `public`, gets the default lifetime (the heuristic); other statuses
/// (201, 202, 403, 5xx but 501, ...) are stored only with explicit freshness or `private`.
public struct Freshness: Sendable, Equatable {
    /// May be stored at all (false: `no-store`, `Vary: *`, or a status not cacheable without freshness).
    public var storable: Bool
    /// `no-cache`: revalidate before every use.
    public var mustRevalidate: Bool
    /// Seconds since the epoch when the response stops being fresh (response time + lifetime - initial age).
    public var expires: Double?
    /// `must-revalidate` or `no-cache`: once stale, never served without the origin's word (no
    /// stale-while-revalidate, stale-if-error or unreachable-network fallback; only an explicit offline use).
    public var noStale: Bool = false
    /// RFC 5861 windows, in seconds past expiry (0 = none).
    public var staleWhileRevalidate: Double = 0
    public var staleIfError: Double = 0
    /// Freshness lifetime in seconds.
    public var lifetime: Double = 0
    /// corrected_initial_age (§4.2.3) in seconds: the age the response had when it arrived.
    public var initialAge: Double = 0
    /// Why the lifetime is what it is, or why the response is not stored (for `cache info`).
    public var basis: String = ""

    public init(storable: Bool, mustRevalidate: Bool, expires: Double?) {
        self.storable = storable
        self.mustRevalidate = mustRevalidate
        self.expires = expires
    }

    /// RFC 9110 §15.1: statuses that are heuristically cacheable.
    public static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]
    /// Statuses whose caching rules imgfetch implements (for `must-understand`, RFC 9111 §5.2.2.3).
    static let understood: Set<Int> = heuristicallyCacheable.union([302, 303, 307, 400, 403, 500, 502, 503, 504])

    /// The rules of a response received now: as `evaluate` with request and response time `now`, status 200.
    public static func from(headers: HTTPHeaders, now: Double, defaultTTL: Double) -> Freshness {
        evaluate(status: 200, headers: headers, requestTime: now, responseTime: now, defaultTTL: defaultTTL)
    }

    /// The rules of one response: `requestTime` is when its request was sent, `responseTime` when it
    /// arrived; `defaultTTL` the heuristic lifetime.
    /// `failureTTL`: the lifetime of a 404 or 410 with neither explicit freshness nor a
    /// Last-Modified (nil: such a response is not stored).
    public static func evaluate(status: Int, headers: HTTPHeaders, requestTime: Double, responseTime: Double,
                                defaultTTL: Double, failureTTL: Double? = nil) -> Freshness {
        let cc = CacheControl(headers: headers)
        var f = Freshness(storable: true, mustRevalidate: cc.has("no-cache"), expires: nil)
        f.noStale = f.mustRevalidate || cc.has("must-revalidate")
        f.staleWhileRevalidate = cc.seconds("stale-while-revalidate") ?? 0
        f.staleIfError = cc.seconds("stale-if-error") ?? 0

        // §4.2.1 freshness lifetime. The Date of the response, else the time it arrived.
        let date = headers.values("date").first.flatMap { HTTPDate.parse($0, now: responseTime) } ?? responseTime
        var explicit = true
        if let maxAge = cc.seconds("max-age") {
            f.lifetime = maxAge
            f.basis = "max-age=\(Int(maxAge))"
        } else if !headers.values("expires").isEmpty {
            let lines = headers.values("expires")
            if lines.count == 1, let expires = HTTPDate.parse(lines[0], now: responseTime) {
                f.lifetime = max(0, min(expires - date, 2_147_483_648))
                f.basis = "Expires - Date = \(Int(f.lifetime)) s"
            } else {
                f.basis = "invalid Expires: already expired"
            }
        } else if status >= 400, heuristicallyCacheable.contains(status) || cc.has("public") {
            // An error response: a tenth of the time since Last-Modified (none without one), at most the default.
            explicit = false
            let modified = headers.values("last-modified").first.flatMap { HTTPDate.parse($0, now: responseTime) }
            f.lifetime = modified.map { min(max(0, defaultTTL), max(0, date - $0) / 10) } ?? 0
            f.basis = "heuristic for an error status: a tenth of the time since Last-Modified, \(Int(f.lifetime)) s"
            if modified == nil {
                if let failureTTL, failureTTL > 0, status == 404 || status == 410, !f.noStale {
                    f.lifetime = failureTTL
                    f.basis = "heuristic for a 404 or 410 without Last-Modified: --failure-ttl, \(Int(f.lifetime)) s"
                } else {
                    f.storable = false
                }
            }
        } else if heuristicallyCacheable.contains(status) || cc.has("public") {
            explicit = false
            f.lifetime = max(0, defaultTTL)
            f.basis = "heuristic: the default lifetime of \(Int(f.lifetime)) s (no max-age, no Expires)"
        } else {
            explicit = false
            f.basis = "status \(status) has no explicit freshness"
        }

        // §4.2.3 age.
        let apparentAge = max(0, responseTime - date)
        let responseDelay = max(0, responseTime - requestTime)
        let correctedAge = (ageValue(headers) ?? 0) + responseDelay
        f.initialAge = max(apparentAge, correctedAge)
        f.expires = responseTime + f.lifetime - f.initialAge

        // §3 storing: no-store (unless must-understand of an understood status), Vary: *, and a status
        // that is cacheable only with explicit freshness or an explicit private/public.
        let mustUnderstand = cc.has("must-understand")
        if mustUnderstand && !understood.contains(status) {
            f.storable = false
            f.basis = "must-understand, status \(status) not understood"
        } else if cc.has("no-store") && !mustUnderstand {
            f.storable = false
            f.basis = "no-store"
        } else if Vary.names(headers) == nil {
            f.storable = false
            f.basis = "Vary: *"
        } else if !explicit && !heuristicallyCacheable.contains(status) && !cc.has("public") && !cc.has("private") {
            f.storable = false
        }
        return f
    }

    /// The `Age` value (RFC 9111 §5.1): the first member of the combined field lines, as delta-seconds
    /// (capped at 2^31); nil when absent or invalid (`abc`, `-1`, `1.5`), which is then ignored.
    /// A parameter after `;` is dropped.
    static func ageValue(_ headers: HTTPHeaders) -> Double? {
        guard let line = headers.values("age").first else { return nil }
        var first = line.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        if let semicolon = first.firstIndex(of: ";") { first = first[..<semicolon] }
        return CacheControl.deltaSeconds(first.trimmed())
    }
}

extension StringProtocol {
    func trimmed() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }

}

extension String {
    var capitalized: String { prefix(1).uppercased() + dropFirst() }
}
