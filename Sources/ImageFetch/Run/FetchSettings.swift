/// Everything a run (`FetchRun`) is built from, in one value: where images are cached, the network's
/// conditions, every limit, the remote tier, the origins' marks, and the process-wide set-up of
/// libcurl (the cookie engine) and libvips (JXL input, threads per image) it asks for.
public struct FetchSettings: Sendable {
    public var cache: any ImageCaching
    public var network = NetworkConditions()
    /// Every admission limit (`Limits`), applied by the run only.
    public var limits = Limits()
    /// The most frames decoded of an animated source.
    public var maxFrames = 1000
    /// The remote cache tier; nil: none.
    public var remote: RemoteTierSettings?
    /// Where the origins' down marks are kept (nil: in this process only).
    public var hostMarks: HostDownMarks?
    /// Where the origins' holds (429/503, backoff) are shared with the other processes on the
    /// cache (nil: in this process only; never under `--resolve`).
    public var originHolds: OriginHoldMarks?
    /// The cookie engine's first lines (a cookie file's); nil: no cookie engine.
    public var cookies: [String]?
    /// libvips may decode JXL (`VipsBridge.allowJXL`).
    public var allowsJXL = false
    /// Threads per image: libvips' (`VipsBridge.setConcurrency`) and, at 1, none of its own for
    /// libwebp's decode (`PixelSourcePath.setThreadsPerImage`); nil: the libraries' defaults.
    public var threadsPerImage: Int?
    /// What the run honours of the origins' wishes (robots.txt, opt-outs).
    public var politeness = PolitenessPolicy()
    /// Where the origins' robots.txt and tdmrep.json are kept (nil: in this process only).
    public var policyFiles: PolicyFileStore?

    public init(cache: any ImageCaching) { self.cache = cache }
}

/// The remote tier of a run: its store (`RemoteStores.make`) and what the run does with it.
public struct RemoteTierSettings: Sendable {
    public var store: RemoteStoreSettings
    public var mode: RemoteCacheMode

    public init(store: RemoteStoreSettings, mode: RemoteCacheMode) {
        self.store = store
        self.mode = mode
    }
}
