/// Writing the remote tier: the image first, then `<key>.meta` (the commit), as on disk.
extension RemoteCache {
    /// The objects of one upload, in the order they are put.
    public struct Upload: Sendable {
        public var key: String
        public var objects: [(name: String, bytes: [UInt8], contentType: String)]
    }

    /// An upload of `bytes` under `entry`: the entry as the disk cache stores it (its size, and its
    /// checksum when empty), so `<key>.meta` holds exactly the bytes of the local `.meta`.
    public static func upload(bytes: [UInt8], entry: CacheEntry) -> Upload {
        var entry = entry
        entry.bytes = Int64(bytes.count)
        if entry.checksum.isEmpty { entry.checksum = Checksum.string(bytes) }
        return Upload(key: entry.key, objects: [
            (name: dataName(entry), bytes: bytes, contentType: contentType(entry)),
            (name: metaName(entry.key), bytes: entry.encoded(), contentType: "application/octet-stream"),
        ])
    }

    /// After a 304: the metadata alone (the image in the store is unchanged).
    public static func metaUpload(_ entry: CacheEntry) -> Upload {
        Upload(key: entry.key, objects: [(name: metaName(entry.key), bytes: entry.encoded(), contentType: "application/octet-stream")])
    }

    /// Puts the objects in order, stopping at the first failure (so no metadata names an image
    /// that was not put). The error is a warning naming the store and the key.
    /// A tier that gave up (`isUsable`) uploads nothing more (its giving-up warning said so).
    func perform(_ upload: Upload) async -> String? {
        guard isUsable else { return nil }
        for object in upload.objects {
            do {
                try await store.put(object.name, object.bytes, contentType: object.contentType)
                _ = record(success: true)
            } catch {
                let giveUp = record(success: false)
                return warning(upload.key, "upload failed (\(error.message))") + (giveUp.map { "; " + $0 } ?? "")
            }
        }
        return nil
    }

    /// Queues `upload` when this tier writes (waiting while the queue is full).
    func enqueue(_ upload: Upload) async {
        guard mode.writes, isUsable else { return }
        await uploader.enqueue { [self] in await perform(upload) }
    }
}

extension RemoteCache {
    /// Uploads `bytes` under `entry` now (image, then metadata), without the queue; nil on
    /// success, else the warning.
    public func upload(bytes: [UInt8], entry: CacheEntry) async -> String? {
        await perform(RemoteCache.upload(bytes: bytes, entry: entry))
    }
}
