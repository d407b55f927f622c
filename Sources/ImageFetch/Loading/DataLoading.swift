/// What the pipeline asks a loader for: one source, with validators for revalidation and the limits.
/// Its synthesised `Hashable` is the download key: loads in flight share one download only when
/// everything but the body tap is equal.
public struct LoadRequest: Sendable, Hashable {
    public var source: Source
    /// `If-None-Match` / `If-Modified-Since` values of a stale entry.
    public var etag: String?
    public var lastModified: String?
    /// Apple's `allowsConstrainedNetworkAccess`: false when the request has a low-data source.
    public var allowsConstrainedNetworkAccess: Bool
    public var connectTimeout: Double
    public var timeout: Double
    public var maxBytes: Int64
    /// The previous hop when this request follows a redirect (nil for the source itself): what a
    /// per-hop decision (which headers go along) looks at.
    public var redirectedFrom: Source?
    /// Return an http response of an error status as a response (its `failure` set) instead of
    /// throwing it, so that its caching rules can be read. Default false.
    public var errorResponses = false
    /// Headers, credentials, TLS, proxy and speed of an http(s) request, whole (see `NetworkOptions`).
    public var network: NetworkOptions
    /// Where an http download that ends early is kept, and resumed from by the next load of it
    /// (`HTTPLoader`: `Range` + `If-Range`); nil = never kept. Loaders of other sources ignore it.
    public var partial: PartialSlot?
    /// A progressive JPEG's download stops once its scans serve a thumbnail of this box
    /// (`ScanWatcher`); nil = read whole. Never for a resumed download (read whole).
    public var partialRead: PartialReadBox?
    /// Send `Save-Data: on` (low-data mode, `ImagePipeline.sendsSaveData`); ignored but for http.
    public var saveData = false
    /// Where an http body goes as it arrives (decoding while downloading); nil = nowhere.
    /// Loaders of other sources ignore it.
    @NotCounted public var bodyTap: BodyTap? = nil
    /// Counts an http body as it arrives (a progress line); nil = none. Not part of the download key.
    @NotCounted public var meter: TransferMeter? = nil
    /// Adds up the network phases of the transfers made for it (`timing`); nil = not timed. Not
    /// part of the download key.
    @NotCounted public var clock: PhaseClock? = nil
    /// Asked by the curl engine right before the transfer starts, and told its status
    /// (`OriginGatedLoader`); nil = none. Not part of the download key.
    @NotCounted public var originStart: OriginStart? = nil
    /// The opt-out decision of a dataset run (`OptOutCheck`), asked when the response's headers are
    /// in: an opted-out image's transfer stops there; nil = none. Not part of the download key.
    @NotCounted public var optOutCheck: OptOutCheck? = nil

    public init(source: Source, etag: String? = nil, lastModified: String? = nil, allowsConstrainedNetworkAccess: Bool = true,
                connectTimeout: Double = 10, timeout: Double = 60, maxBytes: Int64 = 100 << 20,
                network: NetworkOptions = NetworkOptions()) {
        self.network = network
        self.source = source
        self.etag = etag
        self.lastModified = lastModified
        self.allowsConstrainedNetworkAccess = allowsConstrainedNetworkAccess
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.maxBytes = maxBytes
    }
}

/// What a loader returns: the bytes, or `notModified` after a 304, and the response headers.
public struct LoadResponse: Sendable {
    public var bytes: [UInt8]
    public var notModified: Bool
    public var headers: HTTPHeaders
    /// Bytes that crossed the network (0 for files and data: URLs).
    public var downloadedBytes: Int64
    /// For local files: a validator made of mtime and size, so a changed file is not served from the cache.
    public var fileValidator: String?
    /// With `LoadRequest.errorResponses`: the error an error status means (the response is not an image).
    public var failure: FetchError?
    /// A redirect (301, 302, 303, 307, 308 with a `Location`): its target as sent, unresolved. The
    /// loader never follows it; the pipeline does (one hop at a time).
    public var redirectLocation: String?
    /// The HTTP status (200 for files and data: URLs).
    public var status = 200
    /// When the request was sent and when its response arrived, seconds since the epoch (0: unknown,
    /// taken as the time the pipeline received the response).
    public var requestTime: Double = 0
    public var responseTime: Double = 0
    /// The body continued bytes kept from an earlier download, from this offset (a 206); nil = whole.
    public var resumedFrom: Int64?
    /// The RFC 9530 digest algorithms the body was checked with (`sha-256`); nil: none was sent.
    public var digest: String?
    /// The download stopped once the scans that serve had arrived (`LoadRequest.partialRead`):
    /// `bytes` are those scans closed with EOI; nil = the whole body.
    public var partial: PartialRead?

    public init(bytes: [UInt8], notModified: Bool = false, headers: HTTPHeaders = HTTPHeaders(), downloadedBytes: Int64 = 0, fileValidator: String? = nil) {
        self.bytes = bytes
        self.notModified = notModified
        self.headers = headers
        self.downloadedBytes = downloadedBytes
        self.fileValidator = fileValidator
    }
}

/// The loading seam: `SourceLoader` (http via libcurl, files, data: URLs) is the default implementation.
public protocol DataLoading: Sendable {
    func load(_ request: LoadRequest) async throws(FetchError) -> LoadResponse
    /// Called just before the first load of a retrieval: load what the source needs (libcurl for
    /// http) now, synchronously, so the processor's own start-up can overlap the transfer.
    func prepare(for source: Source)
    /// Abandons every load in flight at once and fails later ones with `cancelled`, for good: how a
    /// batch is interrupted without a freed connection starting the next queued transfer. No
    /// default: a wrapper must forward it to what it wraps.
    func cancelAll()
}

extension DataLoading {
    public func prepare(for source: Source) {}
}
