import ImageFetch

/// What kind of failure a retrieval's error is, for a script: `get`'s exit code by class (5, 6, 7,
/// else 1; 9 for a skip by policy, which is no failure) and the record's `error.class`. One
/// table: each cause of `FailureCause` in one class.
/// A source with `--alt` sources takes the class of its last attempt (the last source's); `get`
/// of several sources exits with the class every failure shares, else 1. `prefetch` keeps 1.
enum FailureClass: String {
    /// The server answered with an HTTP error status.
    case http
    /// The origin could not be reached or the transfer broke.
    case network
    /// What arrived is not a usable image: not an image, undecodable, over a limit, or not the
    /// bytes its digest names.
    case image
    /// Anything else (a refused redirect or address, a local file, the cache, a missing library).
    case other

    init(_ error: FetchError) {
        switch error.cause {
        case .http: self = .http
        case .dns, .refused, .connectTimeout, .timeout, .reset, .tls, .proxy, .hostDown, .network: self = .network
        case .decode, .tooLarge, .integrity: self = .image
        case .redirectRefused, .unsupportedFormat, .deniedAddress, .constrained, .notCached, .invalidSource, .fileError,
             .cacheUnavailable, .dependencyMissing, .cancelled, .robots, .optOut: self = .other
        }
    }

    /// `get`'s exit code for a failure of this class.
    var exitCode: ExitCode {
        switch self {
        case .http: .httpError
        case .network: .network
        case .image: .unusableImage
        case .other: .failed
        }
    }

    /// The exit code of `get` for `errors` (one per source asked for): 3 when every one is not
    /// cached, 4 for an unusable cache directory alone, else the class they all share, else 1.
    static func exitCode(for errors: [FetchError]) -> ExitCode {
        guard let first = errors.first else { return .ok }
        if errors.allSatisfy({ $0.policySkip != nil }) { return .skipped }
        if errors.allSatisfy(\.isNotCached) { return .notCached }
        if errors.count == 1, case .cacheUnavailable = first { return .cacheUnusable }
        let classes = Set(errors.map { FailureClass($0) })
        return classes.count == 1 ? classes.first!.exitCode : .failed
    }
}
