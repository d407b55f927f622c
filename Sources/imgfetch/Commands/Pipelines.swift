import ImageFetch

/// Builds the pipeline a command runs: the disk cache, the loader (libcurl on demand), libvips on demand.
enum Pipelines {
    /// `deferredScans`: a store never scans the whole cache (`get`, which a loop runs again and again);
    /// `BackgroundScan.startIfWanted` then runs the scan in another process.
    static func make(_ settings: RequestOptions, limits: Limits = Limits(), remote: RemoteCache? = nil,
                     deferredScans: Bool = false) -> ImagePipeline {
        if settings.allowJXL { VipsBridge.allowJXL() }
        var limits = limits
        limits.totalRate = settings.totalRate
        limits.origins = settings.origins
        limits.origins.ignoresMarks = settings.options.cachePolicy == .forceRefresh
        if settings.network.usesCookieEngine { CurlEngine.shared.useCookies(settings.network.cookieFile?.cookies.map(\.line) ?? []) }
        return ImagePipeline.make(cache: DiskCache(directory: settings.cacheDirectory, sizeLimit: settings.cacheSizeLimit,
                                                   deferredScans: deferredScans),
                                  network: settings.networkConditions, limits: limits, maxFrames: settings.maxFrames, remote: remote,
                                  hostMarks: HostDownMarks(cacheDirectory: settings.cacheDirectory),
                                  politeness: settings.politeness, policyFiles: PolicyFileStore(cacheDirectory: settings.cacheDirectory))
    }
}
