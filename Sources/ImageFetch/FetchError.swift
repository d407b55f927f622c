/// Every way one retrieval can fail, as data: a stable `code` (read by scripts in `--json` output),
/// `isRetryable` (read by the retry policy), and a one-line human `message`.
public enum FetchError: Error, Sendable, Equatable {
    /// The source string is not a URL, path or data: URL imgfetch understands.
    case invalidSource(String)
    /// The request has a low-data source and the network is constrained (low-data mode): nothing was sent.
    case constrained
    /// The server answered with a non-2xx status. `retryAfter` is the parsed `Retry-After`, in seconds.
    case httpStatus(Int, retryAfter: Double?)
    /// A retryable HTTP status whose `Retry-After` (`wait`, in seconds) would end beyond the retry
    /// time limit (`limit`, in seconds): failed at once rather than waited for. Its code is `http_status`.
    case retryAfterBeyondLimit(status: Int, wait: Double, limit: Double)
    /// The connect or total timeout expired: `cause` `connectTimeout` (no connection made) or `timeout`.
    case timeout(String, cause: FailureCause = .timeout)
    /// The connection failed or was reset mid-transfer: `cause` `reset`, `proxy`, `tls` (a TLS code
    /// of libcurl's other than the four `tls` has) or `network` (a code the cause table does not know).
    case connection(String, cause: FailureCause = .reset)
    /// No route to the server at all: `cause` `dns`, `refused` or `proxy`.
    case unreachable(String, cause: FailureCause = .refused)
    /// A redirect went to a scheme other than http/https, or there were too many redirects.
    case redirectRefused(String)
    /// TLS handshake or certificate verification failed.
    case tls(String)
    /// The address guard (`NetworkOptions.deniedAddresses`, `denyPrivateAddresses`) refused every
    /// address the host had; the message names the address. Never retried.
    case deniedAddress(String)
    /// Refused by a limit (`--max-bytes`, `--max-pixels`).
    case tooLarge(String)
    /// The bytes are not a complete image libvips can decode (truncated, empty, HTML...).
    case invalidImage(String)
    /// The body does not match an RFC 9530 digest the server sent (`Repr-Digest`,
    /// `Content-Digest`), whole or resumed: nothing is stored, the kept bytes go. Never retried.
    case integrity(String)
    /// The requested output format cannot be written by this libvips build.
    case unsupportedFormat(String)
    /// A local file source could not be read.
    case fileError(String)
    /// Not in the cache and the network may not be used (`--cache-only`, `--offline`).
    case notCached
    /// In the cache but not fresh, and only fresh entries may be served without the network
    /// (`--cache-only`): `expiredAgo` seconds since it expired, nil when it must be revalidated
    /// whatever its age. Its code is `not_cached`; an offline retrieval would serve it.
    case cachedButStale(expiredAgo: Double?)
    /// An HTTP 401 from a host a redirect led to, which the login was withheld from (it
    /// goes to the first host only, `NetworkOptions.sent(to:origin:)`). Its code is `http_status`.
    case loginWithheld(status: Int, host: String)
    /// The cache directory cannot be used (permissions, disk full).
    case cacheUnavailable(String)
    /// libvips or libcurl could not be loaded.
    case dependencyMissing(String)
    /// The retrieval was cancelled (interrupt).
    case cancelled
    /// The origin was marked down by the dead-host breaker (`OriginGate`): failed at once, never
    /// retried; the message says when it was marked and why.
    case hostDown(String)
    /// Every source (the original, its low-data fallback, the alternatives) failed, in the order tried.
    case sourcesExhausted([SourceFailure])
    /// The origin's robots.txt (`url`) could not be had (429, 5xx, no answer; RFC 9309 §2.3.1.4):
    /// nothing is requested from the origin. Its code and cause are the robots.txt fetch's.
    indirect case robotsUnavailable(url: String, reason: FetchError)
    /// Not fetched by policy: robots.txt disallows the path, or the response carries an opt-out
    /// (`PolicySkip`). Not a failure of the line: its record says `skipped`.
    case skipped(PolicySkip)

    /// A stable, machine-readable name for the failure (`error.code` in `--json`).
    public var code: String {
        switch self {
        case .invalidSource: "invalid_source"
        case .constrained: "constrained"
        case .httpStatus, .retryAfterBeyondLimit, .loginWithheld: "http_status"
        case .timeout: "timeout"
        case .connection: "connection"
        case .unreachable: "unreachable"
        case .redirectRefused: "redirect_refused"
        case .tls: "tls"
        case .deniedAddress: "denied_address"
        case .tooLarge: "too_large"
        case .invalidImage: "invalid_image"
        case .integrity: "integrity"
        case .unsupportedFormat: "unsupported_format"
        case .fileError: "file_error"
        case .notCached, .cachedButStale: "not_cached"
        case .cacheUnavailable: "cache_unavailable"
        case .dependencyMissing: "dependency_missing"
        case .cancelled: "cancelled"
        case .hostDown: "host_down"
        case .sourcesExhausted: "sources_exhausted"
        case .robotsUnavailable(_, let reason): reason.code
        case .skipped: "skipped"
        }
    }

    /// Whether trying the same source again may succeed: timeouts, connection failures and resets,
    /// HTTP 408, 429 and 5xx. A constrained failure is never retried (it would fail the same way).
    public var isRetryable: Bool {
        switch self {
        case .timeout, .connection, .unreachable: true
        case .httpStatus(let status, _): status == 408 || status == 429 || (500...599).contains(status)
        default: false
        }
    }

    /// True when the failure says the network could not be reached at all (used for stale-if-error).
    public var isNetworkUnreachable: Bool {
        if case .unreachable = self { return true }
        return false
    }

    /// One line for a human, without the source (the caller names the source).
    public var message: String {
        switch self {
        case .invalidSource(let s): "not a source imgfetch understands: \(s)"
        case .constrained: "not allowed on a constrained network (low-data mode)"
        case .httpStatus(let status, _): "HTTP \(status)"
        case .retryAfterBeyondLimit(let status, let wait, let limit):
            "HTTP \(status), and its Retry-After asks for a wait of \(FetchError.seconds(wait)), beyond the retry time limit of \(FetchError.seconds(limit)): not retried"
        case .timeout(let m, _), .connection(let m, _), .unreachable(let m, _):
            m
        case .redirectRefused(let m), .tls(let m), .deniedAddress(let m), .hostDown(let m),
             .tooLarge(let m), .invalidImage(let m), .integrity(let m), .unsupportedFormat(let m), .fileError(let m),
             .cacheUnavailable(let m), .dependencyMissing(let m):
            m
        case .notCached: "not cached, and the network may not be used"
        case .cachedButStale(let ago):
            "cached but stale (\(ago.map { "expired \(FetchError.age($0)) ago" } ?? "it must be revalidated")), and the network may not be used"
        case .loginWithheld(let status, let host):
            "HTTP \(status) from \(host) after a redirect to another host: the login was withheld (it is sent to the first host only)"
        case .cancelled: "cancelled"
        case .sourcesExhausted(let failures):
            "all \(failures.count) sources failed: "
                + failures.map { $0.error.message(naming: $0.source) }.joined(separator: "; ")
        case .robotsUnavailable(let url, let reason):
            "its origin's robots.txt is unavailable (\(url): \(reason.message)): nothing is requested from the origin"
        case .skipped(let skip): skip.message
        }
    }

    /// An age in the largest whole unit that fits: "45 s", "12 min", "3 h", "2 d".
    static func age(_ seconds: Double) -> String {
        let s = Int64(min(max(seconds, 0), 1e15))
        if s < 120 { return "\(s) s" }
        if s < 2 * 3600 { return "\(s / 60) min" }
        if s < 2 * 86400 { return "\(s / 3600) h" }
        return "\(s / 86400) d"
    }

    /// Whole seconds when the value is whole ("300 s"), else one decimal ("2.5 s").
    static func seconds(_ value: Double) -> String {
        let v = min(max(value, 0), 1e15)
        if v == v.rounded() { return "\(Int64(v)) s" }
        return "\((v * 10).rounded() / 10) s"
    }

    /// `SOURCE: message`, or the message alone when it already names the source (a file error names
    /// its path, an invalid source quotes itself, every failure of `sourcesExhausted` is named): no
    /// line repeats its source.
    public func message(naming source: String) -> String {
        let message = self.message
        return FetchError.names(message, source) ? message : "\(source): \(message)"
    }

    /// Whether `message` has `source` as a word of its own: after the start or a space, before the
    /// end or a space, `:`, `;` or `,` (so a source `a` is not found inside "may").
    static func names(_ message: String, _ source: String) -> Bool {
        guard !source.isEmpty else { return false }
        var rest = message[...]
        while let range = rest.firstRange(of: source) {
            let before = range.lowerBound == message.startIndex ? nil : message[message.index(before: range.lowerBound)]
            let after = range.upperBound == message.endIndex ? nil : message[range.upperBound]
            if before == nil || before == " ", after == nil || [" ", ":", ";", ","].contains(after!) { return true }
            rest = message[message.index(after: range.lowerBound)...]
        }
        return false
    }

    /// The policy skip this failure is (a skip as the last source's failure too), else nil.
    public var policySkip: PolicySkip? {
        switch self {
        case .skipped(let skip): skip
        case .sourcesExhausted(let f): f.last?.error.policySkip
        default: nil
        }
    }

    /// Whether the origin's robots.txt was unavailable (the last source's, for `sourcesExhausted`).
    public var robotsUnavailable: Bool {
        switch self {
        case .robotsUnavailable: true
        case .sourcesExhausted(let f): f.last?.error.robotsUnavailable ?? false
        default: false
        }
    }

    /// True when every underlying failure is `notCached` (exit code 3 rather than 1).
    public var isNotCached: Bool {
        switch self {
        case .notCached, .cachedButStale: true
        case .sourcesExhausted(let f): !f.isEmpty && f.allSatisfy { $0.error.isNotCached }
        default: false
        }
    }
}

/// One source's failure inside `FetchError.sourcesExhausted`.
public struct SourceFailure: Sendable, Equatable {
    public var source: String
    public var error: FetchError
    public var attempts: Int
    public init(source: String, error: FetchError, attempts: Int) {
        self.source = source
        self.error = error
        self.attempts = attempts
    }
}
