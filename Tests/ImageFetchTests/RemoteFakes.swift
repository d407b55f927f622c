import Foundation
import Synchronization
@testable import ImageFetch

/// An in-memory object store: GETs, PUTs and HEADs are recorded; `failing` makes every call throw
/// (a store that is down); `putDelay` makes each PUT take that long.
final class FakeRemoteStore: RemoteStoring, Sendable {
    private struct State { var objects: [String: [UInt8]] = [:]; var gets: [String] = []; var puts: [String] = [] }
    private let state = Mutex(State())
    private let failure = Mutex<RemoteStoreError?>(nil)
    let putDelay: Double

    init(putDelay: Double = 0) { self.putDelay = putDelay }

    var description: String { "http://store.test/cache/" }
    var objects: [String: [UInt8]] { state.withLock { $0.objects } }
    var gets: [String] { state.withLock { $0.gets } }
    var puts: [String] { state.withLock { $0.puts } }
    func set(_ name: String, _ bytes: [UInt8]) { state.withLock { $0.objects[name] = bytes } }
    func fail(with error: RemoteStoreError?) { failure.withLock { $0 = error } }

    func get(_ name: String, maxBytes: Int64) async throws(RemoteStoreError) -> [UInt8]? {
        state.withLock { $0.gets.append(name) }
        if let error = failure.withLock({ $0 }) { throw error }
        guard let bytes = state.withLock({ $0.objects[name] }) else { return nil }
        if Int64(bytes.count) > maxBytes { throw RemoteStoreError("\(name): larger than \(maxBytes) bytes") }
        return bytes
    }

    func exists(_ name: String) async throws(RemoteStoreError) -> Bool {
        if let error = failure.withLock({ $0 }) { throw error }
        return state.withLock { $0.objects[name] != nil }
    }

    func put(_ name: String, _ bytes: [UInt8], contentType: String) async throws(RemoteStoreError) {
        if putDelay > 0 { try? await Task.sleep(nanoseconds: UInt64(putDelay * 1e9)) }
        if let error = failure.withLock({ $0 }) { throw error }
        state.withLock { $0.puts.append(name); $0.objects[name] = bytes }
    }

    func list(continuation: String?) async throws(RemoteStoreError) -> RemoteListing {
        RemoteListing(names: state.withLock { $0.objects.keys.sorted() })
    }
}

extension PipelineFixture {
    /// A pipeline over this fixture's cache, loader and processor with `remote` as its remote tier.
    func pipeline(remote: RemoteCache) -> ImagePipeline {
        ImagePipeline(cache: cache, memoryCache: nil, loader: loader, processor: processor,
                      pool: ProcessingPool(width: 1), sleeper: sleeper, remote: remote)
    }
}

/// Puts an entry of `bytes` for `key` in `store` as another machine's run would have.
func seedRemote(_ store: FakeRemoteStore, _ source: Source, _ processing: Processing = .original, bytes: [UInt8],
                expires: Double?, etag: String? = nil, headers: [(name: String, value: String)] = []) -> CacheEntry {
    let key = CacheKey(source: source, processing: processing)
    var entry = CacheEntry(key: key.rawValue, identity: source.identity, source: source.description,
                           variant: processing.identifier, format: "png", width: 640, height: 480,
                           bytes: Int64(bytes.count), checksum: Checksum.string(bytes), created: FileSystem.now() - 1000,
                           expires: expires, etag: etag)
    let now = FileSystem.now()
    entry.response = StoredResponse(status: 200, requestTime: now - 1000, responseTime: now - 1000, defaultTTL: 86_400,
                                    headers: HTTPHeaders(headers))
    store.set(key.rawValue + ".meta", entry.encoded())
    store.set(key.rawValue + ".png", bytes)
    return entry
}
