/// The name of one cache entry: a SHA-256 of the source's identity and the processing identifier.
/// Stable across runs and machines; no part of a URL ever becomes a path.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    /// The key of `source` processed by `processing`. A source with credentials is keyed by their
    /// digest under `credentials` (see `Source.identity(credentials:)`); other sources never use it.
    public init(source: Source, processing: Processing, credentials: CredentialDigest) throws(FetchError) {
        self.init(identity: try source.identity(credentials: credentials), processing: processing)
    }

    /// The key of a source with no credentials (one with credentials is keyed under this process's
    /// ephemeral secret: use `init(source:processing:credentials:)` for anything stored).
    public init(source: Source, processing: Processing) {
        self.init(identity: source.identity, processing: processing)
    }

    /// The key of `source` processed by `processing`, asked for with `network`: an http(s) source
    /// asked for with headers, a cookie or credentials (`NetworkOptions.cacheKeyPart`) has a key of
    /// its own; without them, or for another source, the key is the one without `network`.
    public init(source: Source, processing: Processing, network: NetworkOptions,
                credentials: CredentialDigest) throws(FetchError) {
        let part = source.isNetwork ? try network.cacheKeyPart(credentials: credentials) : nil
        self.init(identity: try source.identity(credentials: credentials), processing: processing, network: part)
    }

    init(identity: String, processing: Processing, network: String? = nil) {
        let shaped = network.map { "\nnetwork\n" + $0 } ?? ""
        // A processed variant is also keyed by the renderer's version: an entry an older build made
        // (other colours, metadata, filter) is never served as this build's picture. Originals are
        // the source's own bytes and keep their key.
        let render = processing.isOriginal ? "" : "\nrender \(Processing.renderVersion)"
        rawValue = SHA256.hex("imgfetch-v1\n\(identity)\n\(processing.identifier)" + render + shaped)
    }

    init(digest: String) { rawValue = digest }

    /// The key an entry of `identity` and processing identifier `variant` has when it was asked for
    /// without headers, a cookie or credentials (no network part): what `cache push` compares an
    /// entry's key with to know whether it may leave the machine.
    static func plainKey(identity: String, variant: String) -> String {
        let render = variant == Processing.original.identifier ? "" : "\nrender \(Processing.renderVersion)"
        return SHA256.hex("imgfetch-v1\n\(identity)\n\(variant)" + render)
    }

    /// A key given by a user (`cache info KEY`): 64 lowercase hex digits, else nil.
    public init?(hex: String) {
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        rawValue = hex
    }

    public var description: String { rawValue }
}
