// HTTPRemoteStore: the remote cache tier's object store over HTTP: plain GET, HEAD and PUT under a
// URL prefix (nginx with WebDAV PUT, bazel-remote, any Bazel-style HTTP cache), or S3's API with
// path-style or virtual-hosted URLs, signed with AWS Signature V4 by libcurl.
//
// libcurl is loaded (dlopen) on the first request, never when the store is only made: a run whose
// images are all in the local cache never loads it. With `directReads` (the CLI's default when no
// proxy applies) GETs of an http:// store go over `DirectHTTPClient` instead, so a run whose images
// all come from the tier never loads it either.

import CCurl

/// An object store reached over HTTP(S): see `RemoteStoring`. Made by `RemoteStores.make`.
///
/// Everything the store answers is hostile: bodies are read under a byte cap, a listing keeps only
/// names of the form `<64 hex digits>.<ext>`, and an object name given to it must be a plain file
/// name (`[A-Za-z0-9._-]`, not starting with a dot), never a path. Credentials never appear in
/// `description` or in an error.
public struct HTTPRemoteStore: RemoteStoring {
    /// Where the objects are.
    public enum Location: Sendable, Equatable {
        /// `base` ends with `/`: object `NAME` is `base + NAME` (`http://host:8080/cache/`).
        case http(base: String)
        /// `bucketURL`: `ENDPOINT/BUCKET` (path-style, any S3-compatible store) or
        /// `https://BUCKET.s3.REGION.amazonaws.com/` (virtual-hosted, AWS); `prefix`: the key prefix
        /// (empty or ending with `/`); `region` signs the requests.
        case s3(bucketURL: String, bucket: String, prefix: String, region: String)
    }

    /// AWS credentials for `s3` locations. Its description never shows them.
    public struct Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        public var accessKeyID: String
        public var secretAccessKey: String
        public var sessionToken: String?
        public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
        }
        public var description: String { "AWS credentials (redacted)" }
        public var debugDescription: String { description }
        public var customMirror: Mirror { Mirror(self, children: [:]) }
    }

    public let location: Location
    let credentials: Credentials?
    let tls: TLSOptions
    /// The proxy of every libcurl request and the hosts it skips (nil: libcurl reads the environment).
    let proxy: String?
    let noProxy: String?
    let connectTimeout: Double
    let timeout: Double
    public let description: String
    /// Reads objects of an `http://` location without libcurl (see `RemoteStoreSettings.directReads`).
    let direct: DirectHTTPClient?
    /// The libcurl engine its requests go through: the run's (`FetchRun`), else the process's.
    let engine: CurlEngine
    /// S3 only: names per listing page (`max-keys`); nil = the store's default (1000 on S3). Tests
    /// set it to see several pages.
    public var listPageSize: Int?

    /// The largest S3 listing page read: 64 MiB (an HTTP server's directory listing is streamed:
    /// `maxStreamedListingBytes`).
    public static let maxListingBytes: Int64 = 64 << 20
    /// The largest error body read (for S3's error code): 64 KiB.
    static let maxErrorBytes: Int64 = 64 << 10

    /// `connectTimeout` and `timeout` (seconds, each request) default to 5 and 30; `tls` to the
    /// system's trust. `directReads`: GETs of an `http://` location go over `DirectHTTPClient`
    /// (default false: through libcurl, as every other request), at most `maxDirectReads` at once
    /// (0: no bound; see `RemoteStoreSettings`). `proxy`, `noProxy`: as the
    /// origin's (`NetworkOptions`); nil = libcurl reads the environment. `engine`: the libcurl
    /// engine of every request that is not a direct read.
    public init(location: Location, credentials: Credentials? = nil, tls: TLSOptions = TLSOptions(),
                connectTimeout: Double = 5, timeout: Double = 30, directReads: Bool = false, maxDirectReads: Int = 0,
                proxy: String? = nil, noProxy: String? = nil, engine: CurlEngine = .shared) {
        self.engine = engine
        self.proxy = proxy
        self.noProxy = noProxy
        if directReads, case .http(let base) = location, let endpoint = DirectHTTPClient.Endpoint(base: base) {
            direct = DirectHTTPClient(endpoint: endpoint, connectTimeout: connectTimeout, timeout: timeout,
                                      maxConcurrent: maxDirectReads)
        } else {
            direct = nil
        }
        self.location = location
        self.credentials = credentials
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        switch location {
        case .http(let base): description = base
        case .s3(_, let bucket, let prefix, _): description = "s3://\(bucket)/\(prefix)"
        }
    }

    public func get(_ name: String, maxBytes: Int64) async throws(RemoteStoreError) -> [UInt8]? {
        if let direct { return try await directGet(direct, name, maxBytes: maxBytes) }
        let result = try await send(.get, url: try objectURL(name), what: "GET \(name)", maxBytes: max(0, maxBytes))
        if result.httpStatus == 404 { return nil }
        try check(result, what: "GET \(name)")
        return result.body
    }

    /// Over the direct client, the request follows `limit` as it is lowered, and fails at once when
    /// every direct connection is taken (it is the tier's early request, which the caller makes
    /// again in the ordinary way); through libcurl (https, s3://, a proxy) the cap is `maxBytes` from
    /// the start (an answer announcing more ends at its head).
    public func get(_ name: String, maxBytes: Int64, limit: BodyLimit) async throws(RemoteStoreError) -> [UInt8]? {
        if let direct { return try await directGet(direct, name, maxBytes: maxBytes, limit: limit, ifIdle: true) }
        return try await get(name, maxBytes: maxBytes)
    }

    public func exists(_ name: String) async throws(RemoteStoreError) -> Bool {
        let result = try await send(.head, url: try objectURL(name), what: "HEAD \(name)", maxBytes: HTTPRemoteStore.maxErrorBytes)
        if result.httpStatus == 404 { return false }
        try check(result, what: "HEAD \(name)")
        return true
    }

    public func put(_ name: String, _ bytes: [UInt8], contentType: String) async throws(RemoteStoreError) {
        let type = HTTPHeaders.validValue(contentType) ?? "application/octet-stream"
        let result = try await send(.put, url: try objectURL(name), what: "PUT \(name)", maxBytes: HTTPRemoteStore.maxErrorBytes,
                                    body: bytes, headers: ["Content-Type: \(type)"])
        try check(result, what: "PUT \(name)")
    }

    // MARK: - Requests

    /// A plain file name: 1 to 255 bytes of `[A-Za-z0-9._-]`, not starting with a dot.
    static func isPlainName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...255).contains(bytes.count), bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { b in
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: b == UInt8(ascii: ".") || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
            }
        }
    }

    func objectURL(_ name: String) throws(RemoteStoreError) -> String {
        guard HTTPRemoteStore.isPlainName(name) else {
            throw RemoteStoreError("remote cache \(description): refused object name (not a plain file name)")
        }
        switch location {
        case .http(let base): return base + name
        case .s3(let bucketURL, _, let prefix, _): return bucketURL + (bucketURL.hasSuffix("/") ? "" : "/") + prefix + name
        }
    }

    /// Hex SHA-256 of no bytes: the payload hash of a GET or HEAD.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// Sends one request; a 2xx body larger than `maxBytes` is an error.
    func send(_ method: TransferMethod, url: String, what: String, maxBytes: Int64,
              body: [UInt8] = [], headers: [String] = []) async throws(RemoteStoreError) -> TransferResult {
        let transport: CurlTransport
        do { transport = try engine.transport() } catch {
            throw RemoteStoreError("remote cache \(description): \(error.message)")
        }
        // The engine's cap leaves room for an error body (S3's error code); a 2xx body is held to
        // `maxBytes` below. (A cap of 0 would mean "none" to the engine.)
        var request = TransferRequest(url: url, headers: headers, connectTimeout: connectTimeout, timeout: timeout,
                                      maxBytes: max(maxBytes, HTTPRemoteStore.maxErrorBytes), maxRedirects: 0)
        request.method = method
        request.upload = method == .put ? body : []
        request.network.tls = tls
        request.network.proxy = proxy
        request.network.noProxy = noProxy
        if case .s3(_, _, _, let region) = location, let credentials {
            request.awsSigV4 = "aws:amz:\(region):s3"
            request.network.user = "\(credentials.accessKeyID):\(credentials.secretAccessKey)"
            // libcurl 7.88 signs but does not send the payload hash S3 requires.
            request.headers.append("x-amz-content-sha256: \(method == .put ? SHA256.hex(body) : HTTPRemoteStore.emptyPayloadHash)")
            if let token = credentials.sessionToken { request.headers.append("x-amz-security-token: \(token)") }
        }
        let result = await transport.perform(request)
        if result.tooLarge || result.curlCode == Int32(IFC_E_FILESIZE_EXCEEDED) {
            if (200...299).contains(result.httpStatus) {
                throw RemoteStoreError("remote cache \(description): \(what): larger than \(maxBytes) bytes", status: result.httpStatus)
            }
            // An error page larger than the cap: the status is what matters.
            var cut = result
            cut.curlCode = 0
            cut.body = []
            return cut
        }
        guard result.curlCode == 0 else { throw transferError(result, what: what) }
        if (200...299).contains(result.httpStatus), result.body.count > maxBytes {
            throw RemoteStoreError("remote cache \(description): \(what): larger than \(maxBytes) bytes", status: result.httpStatus)
        }
        return result
    }

    /// Throws for any status but 2xx, with S3's error code when it sent one.
    func check(_ result: TransferResult, what: String) throws(RemoteStoreError) {
        guard !(200...299).contains(result.httpStatus) else { return }
        let code = S3ListParser.errorCode(result.body).map { " (\($0))" } ?? ""
        throw RemoteStoreError("remote cache \(description): \(what): HTTP \(result.httpStatus)\(code)", status: result.httpStatus)
    }

    func transferError(_ result: TransferResult, what: String) -> RemoteStoreError {
        let why: String = switch result.curlCode {
        case Int32(IFC_E_COULDNT_CONNECT): "connection refused"
        case Int32(IFC_E_OPERATION_TIMEDOUT): "timed out"
        case Int32(IFC_E_COULDNT_RESOLVE_HOST): "cannot resolve the host"
        case Int32(IFC_E_COULDNT_RESOLVE_PROXY), Int32(IFC_E_PROXY): "proxy failure"
        case Int32(IFC_E_SSL_CONNECT_ERROR), Int32(IFC_E_PEER_FAILED_VERIFICATION), Int32(IFC_E_SSL_CERTPROBLEM),
             Int32(IFC_E_SSL_CACERT_BADFILE): "TLS failure"
        case Int32(IFC_E_ABORTED_BY_CALLBACK): "cancelled"
        case Int32(IFC_E_GOT_NOTHING), Int32(IFC_E_RECV_ERROR), Int32(IFC_E_SEND_ERROR), Int32(IFC_E_PARTIAL_FILE):
            "connection lost"
        default: "transfer failed"
        }
        return RemoteStoreError("remote cache \(description): \(what): \(why) (curl \(result.curlCode): \(redacted(result.errorMessage)))")
    }

    /// `text` with the credentials (should libcurl ever echo them) replaced.
    func redacted(_ text: String) -> String {
        guard let credentials else { return text }
        var out = text
        for secret in [credentials.secretAccessKey, credentials.sessionToken ?? ""] where secret.count >= 4 {
            out = out.replacingAll(secret, with: "[redacted]")
        }
        return out
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation).
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        let t = Array(target.utf8), s = Array(utf8)
        guard !t.isEmpty, s.count >= t.count else { return self }
        var out: [UInt8] = []
        var i = 0
        while i < s.count {
            if i + t.count <= s.count, s[i..<(i + t.count)].elementsEqual(t) {
                out += replacement.utf8
                i += t.count
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension HTTPRemoteStore {
    /// Loads libcurl and starts the store's engine now (see `RemoteStoring.prepare`); nothing when
    /// reads go direct (a remote hit then never loads libcurl).
    public func prepare() {
        if direct == nil { _ = try? engine.transport() }
    }

    /// `get` over the direct client: the same answers and errors as through libcurl.
    func directGet(_ client: DirectHTTPClient, _ name: String, maxBytes: Int64,
                   limit: BodyLimit? = nil, ifIdle: Bool = false) async throws(RemoteStoreError) -> [UInt8]? {
        let what = "GET \(name)"
        _ = try objectURL(name)   // refuses a name that is not a plain file name
        let cap = Int(clamping: max(0, maxBytes))
        let answer: (status: Int, body: [UInt8])
        do throws(DirectHTTPClient.Failure) {
            let response = try await client.get(name, maxBodyBytes: max(cap, Int(HTTPRemoteStore.maxErrorBytes)), limit: limit,
                                                ifIdle: ifIdle)
            answer = (response.status, response.body)
        } catch {
            // An error page over the cap: its status is what matters (as through libcurl).
            guard error.kind == .tooLarge, error.status != 0, !(200...299).contains(error.status) else {
                let why: String = switch error.kind {
                case .refused: "connection refused"
                case .timeout: "timed out"
                case .resolve: "cannot resolve the host"
                case .cancelled: "cancelled"
                case .tooLarge: "larger than \(maxBytes) bytes"
                case .connectionLost: "connection lost"
                case .busy: "every connection is taken"
                case .malformed, .other: error.message
                }
                throw RemoteStoreError("remote cache \(description): \(what): \(why)", status: error.status)
            }
            answer = (error.status, [])
        }
        if answer.status == 404 { return nil }
        guard (200...299).contains(answer.status) else {
            throw RemoteStoreError("remote cache \(description): \(what): HTTP \(answer.status)", status: answer.status)
        }
        guard answer.body.count <= cap else {
            throw RemoteStoreError("remote cache \(description): \(what): larger than \(maxBytes) bytes", status: answer.status)
        }
        return answer.body
    }
}
