extension ImagePipeline {
    /// The default pipeline over `cache`, with every limit of `limits` applied in one place: the
    /// curl engine's connection caps and overall byte rate, the rate limiter (network loads only), the processing pool's
    /// width. Identical downloads in flight are shared (`CoalescingLoader`); libcurl and libvips
    /// are loaded only when a request needs them. The origins' breaker and holds follow
    /// `limits.origins`, its marks kept in `hostMarks` (nil: in this process only).
    public static func make(cache: any ImageCaching, network: NetworkConditions = NetworkConditions(), limits: Limits = Limits(),
                            maxFrames: Int = 1000, remote: RemoteCache? = nil, engine: CurlEngine = .shared,
                            hostMarks: HostDownMarks? = nil) -> ImagePipeline {
        engine.limit(connections: limits.transfers, perHost: limits.perHost, totalRate: limits.totalRate)
        let origins = OriginGate(policy: limits.origins, marks: hostMarks)
        var loader: any DataLoading = OriginGatedLoader(SourceLoader(network: network, engine: engine), gate: origins)
        if let rate = limits.rate { loader = RateLimitedLoader(loader, limiter: RateLimiter(perSecond: rate)) }
        return ImagePipeline(cache: cache, loader: CoalescingLoader(loader), processor: VipsProcessor(maxFrames: maxFrames),
                             pool: ProcessingPool(width: limits.processing), remote: remote, network: network,
                             origins: origins)
    }
}
