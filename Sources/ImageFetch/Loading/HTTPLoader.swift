import CCurl

/// Downloads over http(s) through the process's libcurl engine (`CurlEngine`).
public final class HTTPLoader: Sendable {
    let engine: CurlEngine

    /// The `User-Agent` of every request.
    public static var userAgent: String { "imgfetch/\(ImageFetchVersion.string)" }

    public init(engine: CurlEngine = .shared) {
        self.engine = engine
    }

    /// Aborts every transfer in flight and refuses new ones with `cancelled` (the interrupt of a batch).
    public func cancelAll() { engine.cancelAll() }

    func sharedTransport() throws(FetchError) -> CurlTransport { try engine.transport() }

    public func load(_ request: LoadRequest) async throws(FetchError) -> LoadResponse {
        guard case .http(let url) = request.source else { throw .invalidSource(request.source.description) }
        var headers: [String] = []
        // Never a header value that could end the line (the validators came from a server and a file).
        if let etag = request.etag.flatMap(HTTPHeaders.validValue) { headers.append("If-None-Match: \(etag)") }
        if let lastModified = request.lastModified.flatMap(HTTPHeaders.validValue) { headers.append("If-Modified-Since: \(lastModified)") }
        headers += request.network.headerLines
        // Low-data mode's client hint, unless the request's own headers set it already.
        if request.saveData, !headers.contains(where: { $0.lowercased().hasPrefix("save-data:") }) { headers.append("Save-Data: on") }
        // The rest of a download that ended early, unless the validator changed (RFC 9110 §13.1.5).
        let partial = request.etag == nil && request.lastModified == nil
            ? request.partial?.read().flatMap { Int64($0.bytes.count) < request.maxBytes ? $0 : nil } : nil
        if let partial {
            headers.append("If-Range: \(partial.validator)")
            headers.append("Want-Repr-Digest: sha-256=1")   // RFC 9530 §4: what the joined body is checked against
        }
        var transfer = TransferRequest(url: url, headers: headers, connectTimeout: request.connectTimeout,
                                       timeout: request.timeout, maxBytes: request.maxBytes,
                                       maxRedirects: 0,   // never followed in libcurl: the pipeline follows each hop
                                       userAgent: request.network.userAgent ?? HTTPLoader.userAgent)
        transfer.network = request.network
        transfer.tap = request.bodyTap
        if let partial {
            transfer.rangeFrom = Int64(partial.bytes.count)
            transfer.maxBytes = max(1, request.maxBytes - Int64(partial.bytes.count))   // the cap is on the whole body
            // A streamed decode sees the body whole and in order: the kept bytes first, then a 206's
            // continuation (any other answer ends the tap incomplete: the body is decoded after).
            partial.bytes.withUnsafeBytes { raw in request.bodyTap.map { $0.onData($0.context, raw.baseAddress, raw.count) } }
        }
        transfer.meter = request.meter
        transfer.gate = request.originStart?.gate
        defer { withExtendedLifetime(request.originStart) {} }   // the engine calls it until perform returns
        // Watching the scans of a body read from its start only: a resumed one is read whole.
        let watcher = partial == nil ? request.partialRead.flatMap(ScanWatcher.init) : nil
        transfer.watch = watcher?.watch
        defer { withExtendedLifetime(watcher) {} }   // the transfer calls it until perform returns
        transfer.headersCheck = request.optOutCheck?.headersCheck
        defer { withExtendedLifetime(request.optOutCheck) {} }
        let transport: CurlTransport
        do { transport = try sharedTransport() } catch {
            request.bodyTap?.end(complete: false)
            throw error
        }
        let requestTime = FileSystem.now()
        defer { withExtendedLifetime(request.meter) {} }   // the transfer writes it until perform returns
        var result = await transport.perform(transfer)
        request.clock?.add(result.times, secure: url.lowercased().hasPrefix("https:"))
        if result.stopped, let skip = request.optOutCheck?.decided {   // opted out on its headers: no body was read
            request.bodyTap?.end(complete: false)
            throw .skipped(skip)
        }
        let responseTime = FileSystem.now()
        let received = Int64(result.body.count)
        let continued = partial != nil && result.httpStatus == 206 && result.curlCode == 0
        var digest: String?
        if let slot = request.partial {
            switch HTTPLoader.reconcile(&result, partial: partial, slot: slot) {
            case .done(let checked): digest = checked
            case .failed(let error):
                throw error
            case .startOver:
                // Not the continuation asked for: the kept bytes go, and the whole body is asked for.
                var again = request
                again.bodyTap = nil   // its tap has ended
                return try await load(again)
            }
        }
        if result.stopped, let watcher, let served = watcher.served(result.body) {
            var response = LoadResponse(bytes: served, headers: result.headers, downloadedBytes: received)
            response.status = result.httpStatus
            response.requestTime = requestTime
            response.responseTime = responseTime
            response.partial = PartialRead(downloaded: received,
                                           sourceBytes: result.headers["content-length"].flatMap { Int64($0.trimmed()) })
            return response
        }
        let failure = HTTPLoader.classify(result, request: request)
        if failure == nil, result.httpStatus == 200, !continued {
            digest = try HTTPLoader.verifyWhole(result.body, headers: result.headers)
        }
        if let failure {
            guard request.errorResponses, case .httpStatus = failure else { throw failure }
        }
        var response = LoadResponse(bytes: result.body, notModified: result.httpStatus == 304, headers: result.headers,
                                    downloadedBytes: received)
        response.status = result.httpStatus
        if let failure {
            response.failure = failure
            response.bytes = []
        }
        if HTTPLoader.redirectStatuses.contains(result.httpStatus) { response.redirectLocation = result.headers["location"] }
        response.requestTime = requestTime
        response.responseTime = responseTime
        if continued, let partial { response.resumedFrom = Int64(partial.bytes.count) }
        response.digest = digest
        return response
    }

    /// The statuses whose `Location` the pipeline follows.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Maps a finished transfer to the error it represents, or nil for a usable 2xx, 304 or redirect.
    static func classify(_ r: TransferResult, request: LoadRequest) -> FetchError? {
        if r.tooLarge || r.curlCode == Int32(IFC_E_FILESIZE_EXCEEDED) {
            return .tooLarge("download exceeds --max-bytes \(request.maxBytes)")
        }
        // libcurl's own words may quote a URL it was given (a proxy's, with its password): redacted.
        let detail = r.errorMessage.isEmpty ? "curl error \(r.curlCode)" : Source.redactingURLs(in: r.errorMessage)
        // The guard's refusal reads as COULDNT_CONNECT: told apart by the address it recorded.
        if r.curlCode == Int32(IFC_E_COULDNT_CONNECT), !r.deniedAddress.isEmpty {
            return .deniedAddress("refused to connect to \(r.deniedAddress): a denied address")
        }
        if r.curlCode != 0 {
            // Which certificates were trusted is said, never their paths' contents.
            let origin = request.network.tls.origin
            return FetchError.curl(r.curlCode, detail: detail, connected: r.times.connect > 0,
                                   viaProxy: request.network.proxy.map { !$0.isEmpty } ?? false,
                                   trusting: origin.isEmpty ? "(trusting the system CA bundle)" : "(trusting the CAs of \(origin))",
                                   source: request.source.description)
        }
        switch r.httpStatus {
        case 200...299:
            return nil
        case 304 where request.etag != nil || request.lastModified != nil:
            return nil
        case let status where redirectStatuses.contains(status) && r.headers["location"] != nil:
            return nil
        default:
            return .httpStatus(r.httpStatus, retryAfter: r.headers["retry-after"].flatMap(HTTPLoader.retryAfter))
        }
    }

    /// `Retry-After` as seconds from now: delta-seconds or an HTTP date.
    static func retryAfter(_ value: String) -> Double? {
        let trimmed = value.trimmed()
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (48...57).contains($0) }) {
            return HeaderNumber.integer(trimmed, max: 999_999_999).map(Double.init)   // no inf/1e20
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return max(0, date - FileSystem.now())
    }
}
