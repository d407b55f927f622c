/// One page of a remote store's listing: object names (relative to the store's prefix) and the
/// token that asks for the next page (nil on the last page).
public struct RemoteListing: Sendable, Equatable {
    public var names: [String]
    public var continuation: String?
    public init(names: [String], continuation: String? = nil) {
        self.names = names
        self.continuation = continuation
    }
}

/// Why a remote store could not answer: the store is down, refused, timed out, answered with an
/// unexpected status, or sent more than allowed. Never a credential in `message`.
public struct RemoteStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The HTTP status the store answered with, 0 when none (refused, timeout, ...).
    public var status: Int
    public init(_ message: String, status: Int = 0) {
        self.message = message
        self.status = status
    }
    public var description: String { message }
}

/// The object store behind the remote cache tier: plain GET, HEAD and PUT of whole objects named
/// under one prefix, as Bazel's HTTP remote cache protocol and S3 have them. `HTTPRemoteStore`
/// (http/https, and s3:// signed with SigV4) is the default implementation; tests may use fakes.
///
/// Names are relative to the store's prefix and are made by `RemoteCache` only (`<key>.meta`,
/// `<key>.<ext>`: 64 hex digits and a dot-extension), never from anything the network sent.
public protocol RemoteStoring: Sendable {
    /// Where the store is, for messages (`s3://bucket/prefix`, `http://host/prefix/`): never a credential.
    var description: String { get }
    /// The object's bytes; nil when the store has no such object (404). Throws for every other
    /// answer, and when the body is larger than `maxBytes`.
    func get(_ name: String, maxBytes: Int64) async throws(RemoteStoreError) -> [UInt8]?
    /// As `get`, with a cap the caller may lower while the request runs (`BodyLimit`: the remote
    /// tier asks for an image before its metadata has said its size). It may fail at once when the
    /// store is short of connections (the request is an early one, made again when needed).
    /// Default: `get` under `maxBytes`, the limit unused.
    func get(_ name: String, maxBytes: Int64, limit: BodyLimit) async throws(RemoteStoreError) -> [UInt8]?
    /// Whether the object exists (HEAD).
    func exists(_ name: String) async throws(RemoteStoreError) -> Bool
    /// Stores the object whole (PUT), replacing any object of that name.
    func put(_ name: String, _ bytes: [UInt8], contentType: String) async throws(RemoteStoreError)
    /// One page of the names under the store's prefix, in the store's order (S3 ListObjectsV2; an
    /// HTTP store's JSON directory listing). `continuation`: nil for the first page.
    func list(continuation: String?) async throws(RemoteStoreError) -> RemoteListing
    /// Loads what requests need (libcurl) now, synchronously, so that requests started together do
    /// not wait on one another's loading. Default: nothing.
    func prepare()
}

extension RemoteStoring {
    public func prepare() {}
    public func get(_ name: String, maxBytes: Int64, limit: BodyLimit) async throws(RemoteStoreError) -> [UInt8]? {
        try await get(name, maxBytes: maxBytes)
    }
}
