/// Everything needed to open the remote cache tier, read by the CLI from its options and the
/// environment and travelling whole (the library never reads the environment itself).
public struct RemoteStoreSettings: Sendable, Equatable {
    /// `http://HOST/PREFIX/`, `https://HOST/PREFIX/` or `s3://BUCKET/PREFIX`.
    public var url: String
    /// The S3-compatible endpoint for `s3://` (`--s3-endpoint`); nil = AWS's own
    /// (`https://s3.REGION.amazonaws.com`).
    public var s3Endpoint: String?
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`: used to sign
    /// s3:// requests, never printed or stored. Region default `us-east-1`.
    public var accessKeyID: String?
    public var secretAccessKey: String?
    public var sessionToken: String?
    public var region: String?
    /// Whom the store's https trusts: its own settings (the CLI's `--remote-cacert`, `--remote-insecure`),
    /// never the origin's, since the tier is trusted for every image it serves.
    public var tls: TLSOptions
    /// The proxy of every request to the store and the hosts it does not apply to, as the origin's
    /// (`-x`, `--noproxy`: `NetworkOptions.proxy`, `noProxy`); nil = libcurl reads `http_proxy`,
    /// `https_proxy`, `all_proxy` and `no_proxy`.
    public var proxy: String?
    public var noProxy: String?
    /// Seconds to connect, and for a whole request (each object). Defaults 5 and 30.
    public var connectTimeout: Double
    public var timeout: Double
    /// Whether an `http://` store's objects may be read (GET) straight over a TCP connection of
    /// its own (`DirectHTTPClient`) instead of through libcurl, which a remote hit then never
    /// loads. Only right when no proxy applies to the store: the CLI sets it when neither `proxy` nor
    /// the environment (`http_proxy`, `all_proxy`, `ALL_PROXY`) names one, or when `noProxy` (else
    /// `no_proxy`) names the store's host. Default false: every request through
    /// libcurl. https, s3://, PUT, HEAD and listings always go through libcurl.
    public var directReads: Bool
    /// Direct GETs at once (each holds a connection, a thread and up to four descriptors); more
    /// wait for one to end, and the tier's early image request is not made when none is free.
    /// 0: no bound. The CLI bounds them by `-j` and the descriptor limit.
    public var maxDirectReads = 0

    public init(url: String, s3Endpoint: String? = nil, accessKeyID: String? = nil, secretAccessKey: String? = nil,
                sessionToken: String? = nil, region: String? = nil, tls: TLSOptions = TLSOptions(),
                connectTimeout: Double = 5, timeout: Double = 30, directReads: Bool = false,
                proxy: String? = nil, noProxy: String? = nil) {
        self.directReads = directReads
        self.proxy = proxy
        self.noProxy = noProxy
        self.url = url
        self.s3Endpoint = s3Endpoint
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.region = region
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }
}
