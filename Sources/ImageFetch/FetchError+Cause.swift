/// Why a retrieval failed, finer than its `code` (which stays as the contract fixed it): `error.cause`
/// in a record, the summary's `causes`, and what the dead-host breaker counts. A closed set: every
/// libcurl result code and every pipeline error maps to one of these (`FetchError.cause`,
/// `FailureCause.curl`); a libcurl code the table does not know is `network`, its number in the message.
public enum FailureCause: String, Sendable, Hashable, CaseIterable {
    case dns
    case refused
    case connectTimeout = "connect_timeout"
    case timeout
    case reset
    case tls
    case proxy
    case http
    case redirectRefused = "redirect_refused"
    case decode
    case integrity
    case unsupportedFormat = "unsupported_format"
    case tooLarge = "too_large"
    case deniedAddress = "denied_address"
    case hostDown = "host_down"
    case constrained
    case notCached = "not_cached"
    case invalidSource = "invalid_source"
    case fileError = "file_error"
    case cacheUnavailable = "cache_unavailable"
    case dependencyMissing = "dependency_missing"
    case cancelled
    case network
    /// Skipped by policy (not failures): robots.txt disallows the path; the server opted out.
    case robots
    case optOut = "opt_out"

    /// The cause in words, as the message line says it.
    public var words: String {
        switch self {
        case .dns: "the host name does not resolve"
        case .refused: "the connection was refused"
        case .connectTimeout: "timed out connecting"
        case .timeout: "timed out after connecting"
        case .reset: "the connection was reset or closed early"
        case .tls: "the TLS handshake or certificate check failed"
        case .proxy: "the proxy failed"
        case .http: "the server answered with an error status"
        case .redirectRefused: "a redirect was refused"
        case .decode: "not an image that decodes"
        case .integrity: "the body does not match the digest the server sent"
        case .unsupportedFormat: "an output format this build cannot write"
        case .tooLarge: "refused by a size limit"
        case .deniedAddress: "a denied address"
        case .hostDown: "the host is marked down"
        case .constrained: "not allowed on a constrained network"
        case .notCached: "not cached"
        case .invalidSource: "not a source imgfetch understands"
        case .fileError: "the file cannot be read"
        case .cacheUnavailable: "the cache directory cannot be used"
        case .dependencyMissing: "a library is missing"
        case .cancelled: "cancelled"
        case .network: "a network error"
        case .robots: "disallowed by robots.txt"
        case .optOut: "the server opted out"
        }
    }

    /// Failures that say the origin could not be reached at all (the breaker counts them).
    public var isConnectLevel: Bool { self == .dns || self == .refused || self == .connectTimeout }

    /// libcurl's result `code` of a failed transfer: `connected` when a connection was made (its
    /// CURLINFO_CONNECT_TIME_T is not 0), `viaProxy` when a proxy was in use. The one table: each
    /// row a code, its cause and the `FetchError` it becomes (whose `code` is the contract's).
    static func curl(_ code: Int32, connected: Bool, viaProxy: Bool) -> FailureCause {
        switch code {
        case 6: .dns
        case 7: viaProxy ? .proxy : .refused
        case 28: connected ? .timeout : .connectTimeout
        case 18, 52, 55, 56, 16, 92: .reset
        case 35, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98: .tls
        case 5, 97: .proxy
        case 1, 47: .redirectRefused
        case 63: .tooLarge
        case 42: .cancelled
        case 3: .invalidSource
        default: .network
        }
    }
}

extension FetchError {
    /// The cause of this failure (`error.cause`): for `sourcesExhausted`, the last source's.
    public var cause: FailureCause {
        switch self {
        case .invalidSource: .invalidSource
        case .constrained: .constrained
        case .httpStatus, .retryAfterBeyondLimit, .loginWithheld: .http
        case .timeout(_, let cause), .connection(_, let cause), .unreachable(_, let cause): cause
        case .redirectRefused: .redirectRefused
        case .tls: .tls
        case .deniedAddress: .deniedAddress
        case .hostDown: .hostDown
        case .tooLarge: .tooLarge
        case .invalidImage: .decode
        case .integrity: .integrity
        case .unsupportedFormat: .unsupportedFormat
        case .fileError: .fileError
        case .notCached, .cachedButStale: .notCached
        case .cacheUnavailable: .cacheUnavailable
        case .dependencyMissing: .dependencyMissing
        case .cancelled: .cancelled
        case .sourcesExhausted(let failures): failures.last?.error.cause ?? .cancelled
        case .robotsUnavailable(_, let reason): reason.cause
        case .skipped(let skip): skip.cause
        }
    }

    /// The error a failed libcurl transfer (`code` != 0, not the byte cap, not the address guard)
    /// is: its cause from `FailureCause.curl`, its case the one the code always had (so `code` is
    /// unchanged), the cause's words first in its message, then libcurl's `detail`.
    static func curl(_ code: Int32, detail: String, connected: Bool, viaProxy: Bool, trusting: String, source: String) -> FetchError {
        let cause = FailureCause.curl(code, connected: connected, viaProxy: viaProxy)
        let words = "\(cause.words) (\(detail))"
        switch code {
        case 28: return .timeout(words, cause: cause)
        case 5, 6, 7: return .unreachable(words, cause: cause)
        case 1: return .redirectRefused("redirect to a scheme other than http/https refused (\(detail))")
        case 47: return .redirectRefused("too many redirects")
        case 35, 58, 60, 77: return .tls("\(words) \(trusting)")
        case 42: return .cancelled
        case 3: return .invalidSource(source)
        default:
            if cause == .network { return .connection("\(cause.words), curl code \(code) (\(detail))", cause: .network) }
            return .connection(cause == .tls ? "\(words) \(trusting)" : words, cause: cause)
        }
    }
}
