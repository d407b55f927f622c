/// The name of one cache entry: the SHA-256 of an `EntryKey`'s canonical encoding (`KeyEncoding`).
/// Stable across runs and machines; no part of a URL ever becomes a path.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    /// The key of the entry `material` describes.
    init(_ material: EntryKey) { rawValue = KeyEncoding.digest(material) }

    /// The key of `source` processed by `processing`, asked for with `network`: an http(s) source
    /// asked for with headers, a cookie or credentials has a key of its own
    /// (`NetworkOptions.keyPart`); without them, or for another source, the key is the plain one.
    /// A source with credentials is keyed by their digest under `credentials`.
    public init(source: Source, processing: Processing, network: NetworkOptions = NetworkOptions(),
                credentials: CredentialDigest) throws(FetchError) {
        self.init(EntryKey(identity: try source.identity(credentials: credentials), image: processing,
                           network: source.isNetwork ? try network.keyPart(credentials: credentials, source: source) : nil))
    }

    /// The key of a source with no credentials (one with credentials is keyed under this process's
    /// ephemeral secret: use `init(source:processing:credentials:)` for anything stored).
    public init(source: Source, processing: Processing) {
        self.init(EntryKey(identity: source.identity, image: processing, network: nil))
    }

    /// Where a response of `source` that is not an image (a redirect, an error status) is stored
    /// (never an image's key), with a key of its own when asked for with `network` headers or credentials.
    public init(responseOf source: Source, network: NetworkOptions = NetworkOptions(),
                credentials: CredentialDigest) throws(FetchError) {
        self.init(EntryKey(identity: try source.identity(credentials: credentials), kind: .response,
                           network: source.isNetwork ? try network.keyPart(credentials: credentials, source: source) : nil))
    }

    init(digest: String) { rawValue = digest }

    /// A key given by a user (`cache info KEY`): 64 lowercase hex digits, else nil.
    public init?(hex: String) {
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        rawValue = hex
    }

    public var description: String { rawValue }
}

/// What a persistent key is the digest of: the source's identity, what is stored of it (an image
/// of one processing, or a response that is not an image) and the request shaping that changes the
/// response. Encoded whole (`KeyEncoding`); nothing is added to a key anywhere else.
struct EntryKey: Encodable {
    enum Kind: Encodable {
        /// An image: its processing (`normalized`), and for a processed variant the renderer's
        /// version (`Processing.renderVersion`): a variant an older build made (other colours,
        /// metadata, filter) is never served as this build's picture. Originals are the source's
        /// own bytes and have none.
        case image(PreEncoded<Processing>, render: Int?)
        /// A redirect or an error status (`CacheEntry.redirectFormat`, `statusFormat`).
        case response
        /// An image of one processing made from the first scans of a progressive JPEG (a partial
        /// read, `LoadResponse.partial`): never the whole file's image, so never under its key.
        case partialImage(PreEncoded<Processing>, render: Int)
    }

    /// Raised when what keys are made of changes meaning: every key changes with it.
    var scheme = EntryKey.currentScheme
    var identity: String
    var kind: Kind
    var network: NetworkOptions.KeyPart?

    static let currentScheme = "imgfetch-key 2"

    init(identity: String, kind: Kind, network: NetworkOptions.KeyPart?) {
        self.identity = identity
        self.kind = kind
        self.network = network
    }

    init(identity: String, image processing: Processing, network: NetworkOptions.KeyPart?) {
        self.init(identity: identity, image: PreEncoded(processing.normalized), network: network)
    }

    /// With the processing encoded already (`normalized`): the same key, without encoding it again.
    init(identity: String, partialImage processing: PreEncoded<Processing>, network: NetworkOptions.KeyPart?) {
        self.init(identity: identity, kind: .partialImage(processing, render: Processing.renderVersion), network: network)
    }

    init(identity: String, image processing: PreEncoded<Processing>, network: NetworkOptions.KeyPart?) {
        self.init(identity: identity, kind: .image(processing, render: processing.value.isOriginal ? nil : Processing.renderVersion),
                  network: network)
    }
}
