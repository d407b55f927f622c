import Synchronization

/// Which way the remote cache tier is used (`--remote-cache-mode`). Default `readWrite`.
public enum RemoteCacheMode: String, Sendable, CaseIterable {
    /// Hits are taken from the store; nothing is ever uploaded.
    case read
    /// Misses are uploaded; the store is never read.
    case write
    case readWrite = "read-write"

    public var reads: Bool { self != .write }
    public var writes: Bool { self != .read }
}

/// The remote cache tier: entries of the local layout (`<key>.meta`, the commit, and `<key>.<ext>`)
/// in a shared object store behind the local disk cache. Lookups verify what the store sends as the
/// disk cache verifies its files (key, size, checksum): anything else is a miss with a warning.
/// Uploads go through `uploader`, in the background of the run.
///
/// The store is trusted as a shared HTTP cache is: for what it holds, not for its integrity.
/// Every message names the store by its `description` and the entry by its key, never a credential.
public final class RemoteCache: Sendable {
    public let store: any RemoteStoring
    public let mode: RemoteCacheMode
    /// The bounded background queue uploads go through.
    public let uploader: RemoteUploader
    /// Store calls that failed in a row (any success resets it). At `giveUpAfter`, the tier is
    /// left alone for the rest of the run: a store that is down or times out costs a few requests,
    /// not one timeout per image.
    let failuresInARow = Atomic<Int>(0)
    /// Consecutive failures after which the tier is no longer used in this run. Default 3.
    public let giveUpAfter: Int

    /// `uploader`: default a `RemoteUploader` of `store` with its default limits.
    public init(store: any RemoteStoring, mode: RemoteCacheMode = .readWrite, uploader: RemoteUploader? = nil,
                giveUpAfter: Int = 3) {
        self.store = store
        self.giveUpAfter = max(1, giveUpAfter)
        self.mode = mode
        self.uploader = uploader ?? RemoteUploader()
    }

    /// The largest metadata object read: a `.meta` holds at most 32 kept header lines of ~2 KB.
    static let maxMetaBytes: Int64 = 256 << 10

    static func metaName(_ key: String) -> String { key + ".meta" }

    /// `<key>.<ext>`, as the disk cache names the image (`img` for a format it has no extension for).
    static func dataName(_ entry: CacheEntry) -> String {
        entry.key + "." + (ImageFormat(name: entry.format)?.fileExtension ?? "img")
    }

    static func contentType(_ entry: CacheEntry) -> String {
        guard let format = ImageFormat(name: entry.format), format != .original else { return "application/octet-stream" }
        return "image/" + format.rawValue
    }

    /// False once `giveUpAfter` store calls in a row have failed.
    public var isUsable: Bool { failuresInARow.load(ordering: .relaxed) < giveUpAfter }

    /// Counts a store call's outcome; returns the warning to add when this failure is the one that
    /// makes the tier give up.
    func record(success: Bool) -> String? {
        if success {
            failuresInARow.store(0, ordering: .relaxed)
            return nil
        }
        let n = failuresInARow.wrappingAdd(1, ordering: .relaxed).newValue
        return n == giveUpAfter
            ? "remote cache \(store.description): \(n) failures in a row; not used for the rest of this run" : nil
    }

    /// A warning about `key` in this store: `remote cache STORE: KEY: what`.
    func warning(_ key: String, _ what: String) -> String {
        "remote cache \(store.description): \(key): \(what)"
    }
}
