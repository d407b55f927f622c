/// The state of one retrieval, carried with it (never global): attempts made, whether the low-data
/// fallback has been used, which alternative sources are left, and every failure so far.
struct Retrieval {
    let plan: RequestPlan
    var request: ImageRequest { plan.request }
    let started: Double
    var attempts = 0
    var fallbackUsed = false
    var isLoadingFallback = false
    var alternativesLeft: ArraySlice<Source>
    /// The source being tried is the request's own (planned with the request), not a fallback.
    var isOwnSource = true
    var failures: [SourceFailure] = []
    /// Warnings met on the way (the remote tier's), added to the result.
    var warnings: [String] = []
    /// The retries decided so far, as announced (`RetryNotice`).
    var retries: [RetryNotice] = []

    init(plan: RequestPlan, started: Double) {
        self.plan = plan
        self.started = started
        self.alternativesLeft = plan.request.alternativeSources[...]
    }

    /// Apple's `allowsConstrainedNetworkAccess`: a request that has a low-data source may not use a
    /// constrained network, until its fallback has been taken.
    var allowsConstrainedNetworkAccess: Bool { request.lowDataSource == nil || fallbackUsed }

    /// Kingfisher's `failCurrentSource`: a constrained failure takes the low-data source, once;
    /// any other failure (or a failed fallback) moves on to the next alternative source.
    mutating func nextSource(after error: FetchError) -> Source? {
        isOwnSource = false
        if case .constrained = error, let fallback = request.lowDataSource, !fallbackUsed {
            fallbackUsed = true
            isLoadingFallback = true
            return fallback
        }
        if case .cancelled = error { return nil }
        isLoadingFallback = false
        return alternativesLeft.popFirst()
    }

    /// The single failure, or all of them when more than one source was tried.
    var finalError: FetchError {
        if failures.count == 1 { return failures[0].error }
        if failures.isEmpty { return .cancelled }
        return .sourcesExhausted(failures)
    }

    var elapsedSeconds: Double { FileSystem.monotonic() - started }
    var elapsedMilliseconds: Double { (elapsedSeconds * 1000 * 10).rounded() / 10 }
}
