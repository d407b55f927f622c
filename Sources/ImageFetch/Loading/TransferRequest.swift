// TransferRequest: what one transfer of CurlTransport asks for (method, URL, headers, limits,
// credentials, body).

/// The request method: GET (the default), HEAD (no body is read) or PUT (with `TransferRequest.upload`).
public enum TransferMethod: Sendable, Equatable {
    case get, head, put
}

/// One HTTP(S) request: a GET unless `method` says otherwise.
public struct TransferRequest: Sendable {
    public var url: String
    /// Extra request headers, each `"Name: value"`.
    public var headers: [String]
    /// Connection timeout in seconds; nil = libcurl's default.
    public var connectTimeout: Double?
    /// Whole-transfer timeout in seconds; nil = none.
    public var timeout: Double?
    /// Byte cap on the response body; nil = none. Enforced with or without Content-Length.
    public var maxBytes: Int64?
    /// Redirects followed (http/https only); one more fails with curl code 47.
    public var maxRedirects: Int
    public var userAgent: String
    /// TLS, proxy, credentials (`user`, `netrcFile`) and speed settings; its header fields are
    /// not read here (the caller puts them in `headers`).
    public var network = NetworkOptions()
    /// Receives the body as it arrives; its `onEnd` is called exactly once before `perform` returns.
    public var tap: BodyTap?
    /// Counts the body as it arrives (a progress line's reading); nil = none. Its owner keeps it
    /// alive until `perform` has returned.
    public var meter: TransferMeter?
    /// Watches a kept 2xx body as it arrives and may stop the transfer (`TransferResult.stopped`);
    /// ignored with `tapOnly`. Its owner keeps its context alive until `perform` has returned.
    public var watch: BodyWatch?
    /// With `tap`: a 2xx body goes to the tap only and the result's `body` stays empty, so a body
    /// of any size costs no memory here (`maxBytes` still caps it); another status's body is kept,
    /// at most 64 KiB of it (`tooLarge` beyond). Default false.
    public var tapOnly = false
    /// > 0: a GET of the body from this byte on (`Range: bytes=N-`, CURLOPT_RANGE); the caller adds
    /// `If-Range`. With `tap`, only a 206's body goes to it. Default 0.
    public var rangeFrom: Int64 = 0
    /// GET (default), HEAD or PUT.
    public var method: TransferMethod = .get
    /// The body of a PUT, sent whole with its Content-Length (never `Expect: 100-continue`); ignored
    /// for GET and HEAD. Default empty.
    public var upload: [UInt8] = []
    /// `CURLOPT_AWS_SIGV4` (`"aws:amz:REGION:s3"`): the request is signed with AWS Signature V4 by
    /// libcurl, with `network.user` as `"ACCESS_KEY_ID:SECRET"` instead of Basic authentication. The
    /// caller adds `x-amz-content-sha256` (libcurl 7.88 does not) and any `x-amz-security-token`.
    /// Default nil: not signed.
    public var awsSigV4: String?
    /// Checks a 2xx response's headers before its body and may stop the transfer
    /// (`TransferResult.stopped`): the opt-out signals (`OptOutCheck`). Its owner keeps its context
    /// alive until `perform` has returned. Default nil: none.
    public var headersCheck: HeadersCheck?
    /// The origin gate (`OriginStart.gate`): asked right before the transfer starts, told its
    /// status when it ends, on the loop thread; its owner keeps it alive until `perform` has
    /// returned. Default nil: none.
    public var gate: OriginGateCallbacks?

    public init(
        url: String,
        headers: [String] = [],
        connectTimeout: Double? = nil,
        timeout: Double? = nil,
        maxBytes: Int64? = nil,
        maxRedirects: Int = 5,
        userAgent: String = "imgfetch/\(ImageFetchVersion.string)"
    ) {
        self.url = url
        self.headers = headers
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
        self.userAgent = userAgent
    }
}
