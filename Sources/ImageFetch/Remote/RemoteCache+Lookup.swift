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
    /// With `expecting` (the format the entry must have, known from the processing), the image is
    /// asked for at the same time as the metadata, saving a round trip; it is used only when the
    /// metadata names that very object, and verified the same way. That early request is cancelled
    /// when the metadata is absent, fails or is refused, and held to the size the metadata states
    /// once it is known (an answer announcing more ends at its head). Never throws: every failure
    /// or mismatch is a miss with a warning naming the store and the key.
    public func lookup(_ key: CacheKey, maxBytes: Int64, expecting format: ImageFormat? = nil) async -> Lookup {
        let raw = key.rawValue
        guard CacheLayout.isKey(raw), isUsable else { return Lookup() }
        let store = self.store
        let guessed = format.map { raw + "." + $0.fileExtension }
        // Two requests start at once: the transport is loaded first, not by both (one would wait on a lock).
        if guessed != nil { store.prepare() }
        let limit = BodyLimit(maxBytes)
        // Left unawaited on a return below, the early request is cancelled (and then awaited) as
        // the scope ends: nothing more of it is read.
        async let early: [UInt8]?? = RemoteCache.tryGet(guessed, from: store, maxBytes: maxBytes, limit: limit)
        let metaBytes: [UInt8]
        do {
            let found = try await store.get(RemoteCache.metaName(raw), maxBytes: RemoteCache.maxMetaBytes)
            _ = record(success: true)
            guard let found else { return Lookup() }
            metaBytes = found
        } catch {
            return failed(raw, "cannot read the metadata (\(error.message)); using the origin")
        }
        let entry: CacheEntry
        switch RemoteCache.verifiedEntry(metaBytes, key: raw, maxBytes: maxBytes) {
        case .success(let verified): entry = verified
        case .failure(let problem):
            return Lookup(warning: warning(raw, problem.reason + "; ignored"))
        }
        // The early answer may be another object's (another format) or larger than stated: it gets
        // no more than the stated size.
        limit.lower(to: RemoteCache.dataName(entry) == guessed ? entry.bytes : 0)
        var image: [UInt8]?
        let prefetched = await early
        if RemoteCache.dataName(entry) == guessed, let bytes = prefetched { image = bytes }
        if image == nil {
            do { image = try await store.get(RemoteCache.dataName(entry), maxBytes: entry.bytes) } catch {
                return failed(raw, "cannot read the image (\(error.message)); using the origin")
            }
        }
        guard let bytes = image else {
            return Lookup(warning: warning(raw, "the image object is missing; ignored"))
        }
        if let problem = RemoteCache.mismatch(bytes, of: entry) {
            return Lookup(warning: warning(raw, problem.reason + "; ignored"))
        }
        return Lookup(hit: Hit(entry: entry, bytes: bytes))
    }

    /// Why a remote object cannot be used (the words of a warning).
    struct ObjectProblem: Error, Equatable {
        var reason: String
    }

    /// The one rule for a `.meta` object (lookup and `cache pull`): it decodes as an entry, of
    /// exactly `key`, of a size `0...maxBytes`.
    static func verifiedEntry(_ meta: [UInt8], key: String, maxBytes: Int64) -> Result<CacheEntry, ObjectProblem> {
        guard let entry = CacheEntry.decode(meta) else { return .failure(ObjectProblem(reason: "the metadata object is not a valid entry")) }
        guard entry.key == key, CacheLayout.isKey(entry.key) else {
            return .failure(ObjectProblem(reason: "the metadata object names another key"))
        }
        guard (0...maxBytes).contains(entry.bytes) else {
            return .failure(ObjectProblem(reason: "the entry is larger than the limit of \(maxBytes) bytes"))
        }
        return .success(entry)
    }

    /// The one rule for an image object: exactly the size and checksum its metadata states; nil when it does.
    static func mismatch(_ bytes: [UInt8], of entry: CacheEntry) -> ObjectProblem? {
        guard Int64(bytes.count) == entry.bytes, Checksum.string(bytes) == entry.checksum else {
            return ObjectProblem(reason: "the image does not match its metadata (size or checksum)")
        }
        return nil
    }

    /// GET `name` when there is one; nil when there is none or the store failed (the caller asks
    /// again in the ordinary way); `.some(nil)` when the store has no such object.
    static func tryGet(_ name: String?, from store: any RemoteStoring, maxBytes: Int64, limit: BodyLimit) async -> [UInt8]?? {
        guard let name else { return nil }
        do { return .some(try await store.get(name, maxBytes: maxBytes, limit: limit)) } catch { return nil }
    }

    /// A store call that threw: a miss with its warning (and the giving-up one when it is the last straw).
    private func failed(_ key: String, _ what: String) -> Lookup {
        let giveUp = record(success: false)
        return Lookup(warning: warning(key, what) + (giveUp.map { "; " + $0 } ?? ""))
    }
}
