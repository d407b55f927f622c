/// The default `DataLoading`: routes http(s) to libcurl, files to the file system, data: URLs to their bytes.
/// libcurl is loaded (dlopen) on the first network request only.
public final class SourceLoader: DataLoading, Sendable {
    let http: HTTPLoader
    let files = FileLoader()
    let network: NetworkConditions

    public init(network: NetworkConditions = NetworkConditions(), engine: CurlEngine = .shared) {
        self.network = network
        self.http = HTTPLoader(engine: engine)
    }

    /// dlopen is serialised by the dynamic loader's lock: load libcurl (small) before the processor
    /// starts loading libvips (large) in the background, or the download waits for all of libvips.
    public func prepare(for source: Source) {
        if source.isNetwork { _ = try? http.sharedTransport() }
    }

    public func cancelAll() {
        http.cancelAll()
    }

    public func load(_ request: LoadRequest) async throws(FetchError) -> LoadResponse {
        switch request.source {
        case .http:
            // Apple's rule: a request that does not allow constrained access fails before any byte is sent.
            if !request.allowsConstrainedNetworkAccess && network.isConstrained { throw .constrained }
            return try await http.load(request)
        case .file(let path):
            return try files.load(path: path, maxBytes: request.maxBytes)
        case .data(let payload):
            // Counted when parsed: refused before a byte is decoded.
            if Int64(payload.byteCount) > request.maxBytes { throw .tooLarge(DataURL.tooLargeMessage(payload, request.maxBytes)) }
            return LoadResponse(bytes: payload.decoded())
        }
    }
}

