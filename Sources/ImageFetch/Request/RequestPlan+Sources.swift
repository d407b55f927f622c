/// The plan of one source of a request: its own, its low-data source, an alternative, or a redirect
/// hop of one. The request's own source is planned once, with the request (`ownSource()`).
extension RequestPlan {
    public struct SourcePlan: Sendable {
        public let source: Source
        /// Its entries' keys, asked for with the request's network options.
        public let keys: EntryKeys
        /// The path its bytes take to the output: the one place a route is made.
        public let route: ProcessingRoute
        /// What the loader is asked for, before a retrieval adds its own state (the constrained
        /// network rule, the previous hop, a stale entry's validators, the partial slot, the meter).
        public let load: LoadRequest

        /// The processing asked for, normalised.
        public var processing: Processing { keys.processing }

        init(_ source: Source, origin: Source?, request: ImageRequest, processing: Processing, encoded: Encoded,
             credentials: CredentialDigest) throws(FetchError) {
            let options = request.options
            // A data: URL's size is known without decoding it: refused before any work.
            if case .data(let payload) = source, Int64(payload.byteCount) > options.maxBytes {
                throw .tooLarge(DataURL.tooLargeMessage(payload, options.maxBytes))
            }
            self.source = source
            // The identity and the request shaping once (a data: URL's identity digests all its bytes).
            keys = EntryKeys(identity: try source.identity(credentials: credentials), processing: processing, encoded: encoded,
                             network: source.isNetwork ? try request.network.keyPart(credentials: credentials, source: source) : nil)
            route = ProcessingRoute(processing: processing, source: source)
            var load = LoadRequest(source: source, connectTimeout: options.connectTimeout, timeout: options.timeout,
                                   maxBytes: options.maxBytes, network: request.network.sent(to: source, origin: origin ?? source))
            load.errorResponses = source.isNetwork
            self.load = load
        }
    }

    /// The plan of `source`, reached through the redirects of `origin` (nil: itself): identity goes
    /// to its origin only (`NetworkOptions.sent(to:origin:)`).
    public func plan(for source: Source, origin: Source? = nil) throws(FetchError) -> SourcePlan {
        try SourcePlan(source, origin: origin, request: request, processing: processing, encoded: encoded, credentials: credentials)
    }

    /// The plan of the request's own source, made with the request.
    public func ownSource() throws(FetchError) -> SourcePlan {
        try first.get()
    }
}
