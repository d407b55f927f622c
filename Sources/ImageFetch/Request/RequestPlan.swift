/// Everything the pipeline derives from one request, computed once when its retrieval starts:
/// the key that shares its retrieval and, per source (`SourcePlan`), the keys of its entries, its
/// processing route and its load request. Nothing downstream re-derives a key, a route or a load
/// request from the request's fields.
///
/// What counts where is one table, `classification`; a test compares it with the stored
/// properties of the request types, so a new option cannot be added without deciding.
public struct RequestPlan: Sendable {
    public let request: ImageRequest
    /// The processing keys and the route are made of (`Processing.normalized`).
    public let processing: Processing
    let credentials: CredentialDigest
    /// `processing` and its `original` spelling (`spelledAsSource`), encoded once for every key.
    let encoded: Encoded
    /// The request's own source's plan, made once with the plan (`ownSource`).
    let first: Result<SourcePlan, FetchError>

    /// The processing's encodings, which requests of one processing share (`Prefetcher`).
    public struct Encoded: Sendable {
        let processing: PreEncoded<Processing>
        let asSource: PreEncoded<Processing>?

        init(_ processing: Processing) {
            self.processing = PreEncoded(processing)
            asSource = processing.spelledAsSource.map(PreEncoded.init)
        }
    }

    public init(_ request: ImageRequest, credentials: CredentialDigest, reusing previous: RequestPlan? = nil) {
        self.request = request
        let processing = request.processing.normalized
        self.processing = processing
        self.credentials = credentials
        // A prefetch's lines share their processing: its encoding is taken once.
        if let previous, previous.processing == processing {
            encoded = previous.encoded
        } else {
            encoded = Encoded(processing)
        }
        do throws(FetchError) {
            first = .success(try SourcePlan(request.source, origin: nil, request: request, processing: processing,
                                            encoded: encoded, credentials: credentials))
        } catch { first = .failure(error) }
    }

    /// Shares one retrieval between requests in flight: the whole request (synthesised `Hashable`),
    /// so two requests that differ in anything (an alternative, a low-data source, a header, a
    /// limit) never share one. In memory only.
    public var retrievalKey: ImageRequest { request }

    /// The keys of one of the request's sources (its own, its low-data source, an alternative, or
    /// a redirect hop of one), asked for with the request's network options.
    public func keys(for source: Source) throws(FetchError) -> EntryKeys {
        try plan(for: source).keys
    }

    /// The key `failure` records name: nil when it cannot be made (an unusable credential secret)
    /// or when making it would read a data: URL refused unread for its size.
    public var failureKey: CacheKey? {
        try? first.get().keys.output
    }

    /// The entries of one source: one output, however its format is spelled.
    public struct EntryKeys: Sendable {
        /// The source's identity as entries record it (`Source.identity(credentials:)`).
        public let identity: String
        /// The processing asked for, normalised.
        let processing: Processing
        /// What the request's shaping adds to every key of the source (nil: nothing).
        let network: NetworkOptions.KeyPart?
        /// The output as the request spells it.
        public let output: CacheKey
        /// The same output spelled `original` (`Processing.spelledAsSource`), for a format given
        /// explicitly: the entry of a source already in that format is kept under it.
        public let asSource: CacheKey?

        init(identity: String, processing: Processing, encoded: Encoded, network: NetworkOptions.KeyPart?) {
            self.identity = identity
            self.processing = processing
            self.network = network
            output = CacheKey(EntryKey(identity: identity, image: encoded.processing, network: network))
            asSource = encoded.asSource.map { CacheKey(EntryKey(identity: identity, image: $0, network: network)) }
        }

        /// The output made from part of a progressive JPEG (`ImagePipeline+PartialRead`), made when
        /// asked for: only a request that may read partially looks it up, and a key is a digest.
        public var partial: CacheKey {
            CacheKey(EntryKey(identity: identity, partialImage: PreEncoded(processing), network: network))
        }

        /// The source's original bytes (made when asked for: a hit never needs it).
        public var original: CacheKey {
            processing.isOriginal ? output : CacheKey(EntryKey(identity: identity, image: .original, network: network))
        }

        /// A response of the source that is not an image (a stored redirect or error status).
        public var response: CacheKey { CacheKey(EntryKey(identity: identity, kind: .response, network: network)) }

        /// Asked for with headers, a cookie or credentials (`NetworkOptions.keyPart`): recorded in
        /// the entry, so that `cache push` applies the credentialed upload rule.
        var shaped: Bool { network != nil }

        /// The format the request names (`.original`: the source's own).
        var format: ImageFormat { processing.format }

        /// Where the output is looked up, in order, each with the format an entry found there
        /// must have (nil: any): the source's spelling first (where a source already in the format
        /// asked for keeps it, the common case), then the request's own.
        public var lookups: [(key: CacheKey, format: String?)] {
            guard let asSource else { return [(output, nil)] }
            return [(asSource, format.rawValue), (output, nil)]
        }

        /// Where an output of `format` made from a source of `sourceFormat` is stored: under the
        /// source's spelling when the format asked for is the source's own, so one output is one entry.
        public func stored(format: String, sourceFormat: String) -> CacheKey {
            if let asSource, format == self.format.rawValue, sourceFormat == format { return asSource }
            return output
        }

        /// The `variant` an entry stored under `key` (one of these keys) records.
        public func variant(of key: CacheKey) -> String {
            if key == asSource, let spelled = processing.spelledAsSource { return spelled.identifier }
            return key == output ? processing.identifier : Processing.original.identifier
        }
    }
}
