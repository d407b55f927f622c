extension ImagePipeline {
    /// The default pipeline over `cache`, with every limit of `limits` applied in one place: the
    /// curl engine's connection caps and overall byte rate, the rate limiter (network loads only), the processing pool's
    /// width. Identical downloads in flight are shared (`CoalescingLoader`); libcurl and libvips
    /// are loaded only when a request needs them. The origins' breaker and holds follow
    /// `limits.origins`, its marks kept in `hostMarks` (nil: in this process only). `politeness`:
    /// what the run honours (`Politeness`), its per-origin files kept in `policyFiles`.
    public static func make(cache: any ImageCaching, network: NetworkConditions = NetworkConditions(), limits: Limits = Limits(),
                            maxFrames: Int = 1000, remote: RemoteCache? = nil, engine: CurlEngine = .shared,
                            hostMarks: HostDownMarks? = nil, politeness: PolitenessPolicy = PolitenessPolicy(),
                            policyFiles: PolicyFileStore? = nil) -> ImagePipeline {
        engine.limit(connections: limits.transfers, perHost: limits.perHost, totalRate: limits.totalRate)
        let origins = OriginGate(policy: limits.origins, marks: hostMarks)
        var loader: any DataLoading = OriginGatedLoader(SourceLoader(network: network, engine: engine), gate: origins)
        if let rate = limits.rate { loader = RateLimitedLoader(loader, limiter: RateLimiter(perSecond: rate)) }
        let shared = CoalescingLoader(loader)
        // robots.txt and tdmrep.json go through the same loader: paced, gated and counted like the origin's other requests.
        let polite = politeness.isActive
            ? Politeness(policy: politeness, files: PolicyFiles(store: policyFiles, loader: shared, remote: remote), schedule: origins.schedule) : nil
        return ImagePipeline(cache: cache, loader: shared, processor: VipsProcessor(maxFrames: maxFrames),
                             pool: ProcessingPool(width: limits.processing), remote: remote, network: network,
                             origins: origins, politeness: polite)
    }
}
