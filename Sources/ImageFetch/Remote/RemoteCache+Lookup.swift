/// Reading the remote tier: `<key>.meta`, then the image it describes, verified before any use.
extension RemoteCache {
    /// A verified remote entry: its metadata (as the store holds it) and its image bytes.
    public struct Hit: Sendable {
        public var entry: CacheEntry
        public var bytes: [UInt8]
    }

    /// The outcome of one lookup: a hit, or a miss that may carry a warning (a store that failed,
    /// an object that did not verify). A plain miss (no `.meta`) has none.
    public struct Lookup: Sendable {
        public var hit: Hit? = nil
        public var warning: String? = nil
    }

    /// Looks `key` up: GET `<key>.meta` (bounded), decode it, its key must be `key`; GET the image
    /// (at most the size it states, and at most `maxBytes`); its size and checksum must match.
    /// Never throws: every failure or mismatch is a miss with a warning naming the store and the key.
    public func lookup(_ key: CacheKey, maxBytes: Int64) async -> Lookup {
        let raw = key.rawValue
        guard CacheLayout.isKey(raw), isUsable else { return Lookup() }
        let metaBytes: [UInt8]
        do {
            let found = try await store.get(RemoteCache.metaName(raw), maxBytes: RemoteCache.maxMetaBytes)
            _ = record(success: true)
            guard let found else { return Lookup() }
            metaBytes = found
        } catch {
            return failed(raw, "cannot read the metadata (\(error.message)); using the origin")
        }
        guard let entry = CacheEntry.decode(metaBytes) else {
            return Lookup(warning: warning(raw, "the metadata object is not a valid entry; ignored"))
        }
        guard entry.key == raw else {
            return Lookup(warning: warning(raw, "the metadata object names another key; ignored"))
        }
        guard entry.bytes <= maxBytes else {
            return Lookup(warning: warning(raw, "the entry is larger than the limit of \(maxBytes) bytes; ignored"))
        }
        let bytes: [UInt8]
        do {
            guard let image = try await store.get(RemoteCache.dataName(entry), maxBytes: entry.bytes) else {
                return Lookup(warning: warning(raw, "the image object is missing; ignored"))
            }
            bytes = image
        } catch {
            return failed(raw, "cannot read the image (\(error.message)); using the origin")
        }
        guard Int64(bytes.count) == entry.bytes, Checksum.string(bytes) == entry.checksum else {
            return Lookup(warning: warning(raw, "the image does not match its metadata (size or checksum); ignored"))
        }
        return Lookup(hit: Hit(entry: entry, bytes: bytes))
    }

    /// A store call that threw: a miss with its warning (and the giving-up one when it is the last straw).
    private func failed(_ key: String, _ what: String) -> Lookup {
        let giveUp = record(success: false)
        return Lookup(warning: warning(key, what) + (giveUp.map { "; " + $0 } ?? ""))
    }
}
