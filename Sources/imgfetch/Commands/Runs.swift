import ArgumentKit
import ImageFetch

/// The run a command works in (`FetchRun`), its settings taken from the command's options here and
/// nowhere else: the disk cache, every limit, the remote tier, the origins' marks, the cookie
/// engine, libvips' JXL input and threads. libcurl and libvips are loaded on demand by the run.
enum Runs {
    /// Every limit of a run: with `batch` (prefetch's options) `-j`, `--rate`, `--per-host`; for
    /// every command `--limit-rate-total`, the origins' breaker, the tier's direct reads at once.
    static func limits(_ settings: RequestOptions, batch: ParsedCommand? = nil) throws(UsageError) -> Limits {
        var limits = Limits()
        if let batch {
            limits.transfers = try batch[OptionKeys.jobs] ?? 8
            limits.rate = try batch[OptionKeys.rate]
            limits.perHost = try batch[OptionKeys.perHost] ?? 0
        }
        limits.totalRate = settings.totalRate
        limits.origins = settings.origins
        limits.origins.ignoresMarks = settings.options.cachePolicy == .forceRefresh
        limits.tierDirectReads = Console.directReadBudget(transfers: limits.transfers)
        return limits
    }

    /// `deferredScans`: a store never scans the whole cache (`get`, which a loop runs again and again);
    /// `BackgroundScan.startIfWanted` then runs the scan in another process. `batch`: prefetch's
    /// one libvips thread per image (and one image per core: no hand-offs between vips' own threads).
    /// A tier that cannot be used is a usage error.
    static func start(_ settings: RequestOptions, limits: Limits, deferredScans: Bool = false, batch: Bool = false) throws(UsageError) -> FetchRun {
        var fetch = FetchSettings(cache: DiskCache(directory: settings.cacheDirectory, sizeLimit: settings.cacheSizeLimit,
                                                   deferredScans: deferredScans))
        fetch.network = settings.networkConditions
        fetch.limits = limits
        fetch.maxFrames = settings.maxFrames
        fetch.remote = settings.remote.map { RemoteTierSettings(store: $0.store, mode: $0.mode) }
        fetch.hostMarks = HostDownMarks(cacheDirectory: settings.cacheDirectory)
        // Holds are shared with the other processes on the cache unless an address is overridden
        // (`--resolve`: this run does not reach the origins' own addresses), as the down marks are not.
        if settings.network.resolve.isEmpty { fetch.originHolds = OriginHoldMarks(cacheDirectory: settings.cacheDirectory) }
        fetch.politeness = settings.politeness
        fetch.policyFiles = PolicyFileStore(cacheDirectory: settings.cacheDirectory)
        if settings.network.usesCookieEngine { fetch.cookies = settings.network.cookieFile?.cookies.map(\.line) ?? [] }
        fetch.allowsJXL = settings.allowJXL
        if batch { fetch.threadsPerImage = 1 }
        do { return try FetchRun(fetch) } catch {
            if case .invalidSource(let message) = error { throw UsageError(message) }
            throw UsageError("remote cache: " + error.message)
        }
    }
}
