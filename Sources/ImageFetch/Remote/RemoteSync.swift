// RemoteSync: `cache push` and `cache pull`: whole entries copied between the local cache and a
// remote store, in the store's object layout (`<key>.<ext>` first, `<key>.meta` last: the commit).

/// What one push or pull did.
public struct RemoteSyncSummary: Sendable, Equatable {
    /// Entries copied (pushed or pulled).
    public var copied = 0
    /// Entries already on the other side (or not valid locally, for a push).
    public var skipped = 0
    public var failed = 0
    /// True when the run stopped early: `RemoteSync.giveUpAfter` failures in a row.
    public var gaveUp = false
    public init() {}
}

/// Copies entries between a `DiskCache` and a `RemoteStoring`, a few at a time.
public enum RemoteSync {
    /// Transfers at once. Default 8.
    public static let defaultConcurrency = 8
    /// Failures in a row (nothing succeeding in between) that stop a run: the store is down or
    /// refuses; the rest would fail the same way. 10.
    public static let giveUpAfter = 10

    /// Pushes every valid local entry the store does not have: HEAD `<key>.meta`; when absent, PUT
    /// the image, then the metadata. An entry whose image fails its size or checksum is skipped, as
    /// is one a shared cache may not hold (`mayShare`). `onError` gets
    /// each failure's message (never a credential).
    public static func push(_ cache: DiskCache, to store: any RemoteStoring, concurrency: Int = defaultConcurrency,
                            onError: @escaping @Sendable (String) -> Void) async -> RemoteSyncSummary {
        var entries: [CacheEntry] = []
        cache.forEachEntry { entry in
            entries.append(entry)
            return true
        }
        return await run(entries, concurrency: concurrency, onError: onError) { entry throws(RemoteStoreError) -> Bool in
            if !mayShare(entry) { return false }
            guard let ext = ImageFormat(name: entry.format)?.fileExtension else { return false }
            if try await store.exists(entry.key + ".meta") { return false }
            guard let bytes = cache.verifiedImage(of: entry) else { return false }
            let type = ["jpeg", "png", "webp", "gif", "avif", "heif", "tiff"].contains(entry.format) ? "image/\(entry.format)" : "application/octet-stream"
            try await store.put(entry.key + "." + ext, bytes, contentType: type)
            try await store.put(entry.key + ".meta", entry.encoded(), contentType: "application/octet-stream")
            return true
        }
    }

    /// Pulls every `<key>.meta` the store lists (in `shard` when given, by key) that is not
    /// already valid locally: GET the metadata (its key must be the listed one), GET the image
    /// (at most its stated size), check size and checksum, store it. `onError` gets each failure.
    public static func pull(from store: any RemoteStoring, into cache: DiskCache, shard: Shard? = nil,
                            concurrency: Int = defaultConcurrency,
                            onError: @escaping @Sendable (String) -> Void) async -> RemoteSyncSummary {
        var total = RemoteSyncSummary()
        var token: String?
        var seen = Set<String>()
        repeat {
            let page: RemoteListing
            do { page = try await store.list(continuation: token) } catch {
                onError(error.message)
                total.failed += 1
                return total
            }
            let keys = page.names.compactMap { name -> String? in
                guard name.hasSuffix(".meta"), HTTPRemoteStore.isCacheObjectName(name.utf8) else { return nil }
                let key = String(name.prefix(64))
                guard shard?.contains(key: key) ?? true, seen.insert(key).inserted else { return nil }
                return key
            }
            let part = await run(keys, concurrency: concurrency, onError: onError) { key throws(RemoteStoreError) -> Bool in
                try await pullOne(key, from: store, into: cache)
            }
            total.copied += part.copied
            total.skipped += part.skipped
            total.failed += part.failed
            if part.gaveUp {
                total.gaveUp = true
                return total
            }
            token = page.continuation
        } while token != nil
        return total
    }

    /// Whether a shared cache may hold `entry`: the pipeline's own upload rule
    /// (`StoredResponse.mayBeStoredByASharedCache`: http(s) entries only, never `private` or
    /// `no-store`, a credentialed request's only when `public`). An entry was fetched with
    /// credentials when its identity holds a credential digest (URL user information) or when it
    /// records that it was asked for with headers, a cookie, `-u` or a netrc file (`shaped`).
    static func mayShare(_ entry: CacheEntry) -> Bool {
        entry.mayBeShared(credentialed: entry.identity.contains("hmac-sha256=") || entry.shaped)
    }

    /// One entry pulled: false when it is already valid locally.
    static func pullOne(_ key: String, from store: any RemoteStoring, into cache: DiskCache) async throws(RemoteStoreError) -> Bool {
        if let local = cache.entry(forKey: key), cache.verifiedImage(of: local) != nil { return false }
        let what = "remote cache \(store.description): \(key.prefix(12))"
        guard let meta = try await store.get(RemoteCache.metaName(key), maxBytes: RemoteCache.maxMetaBytes) else {
            throw RemoteStoreError("\(what): the listed metadata is gone")
        }
        // The same checks as a remote hit's (RemoteCache.lookup).
        let entry: CacheEntry
        switch RemoteCache.verifiedEntry(meta, key: key, maxBytes: Int64(Int32.max)) {
        case .success(let verified): entry = verified
        case .failure(let problem): throw RemoteStoreError("\(what): \(problem.reason)")
        }
        guard let bytes = try await store.get(RemoteCache.dataName(entry), maxBytes: entry.bytes) else {
            throw RemoteStoreError("\(what): the image is missing")
        }
        if let problem = RemoteCache.mismatch(bytes, of: entry) { throw RemoteStoreError("\(what): \(problem.reason)") }
        do { try cache.store(bytes, entry: entry) } catch {
            throw RemoteStoreError("\(what): cannot store it locally: \(error)")
        }
        return true
    }

    /// Runs `body` over `items`, `concurrency` at a time, in order of start; stops starting new ones
    /// after `giveUpAfter` failures in a row.
    static func run<T: Sendable>(_ items: [T], concurrency: Int, onError: @escaping @Sendable (String) -> Void,
                                 _ body: @escaping @Sendable (T) async throws(RemoteStoreError) -> Bool) async -> RemoteSyncSummary {
        var summary = RemoteSyncSummary()
        var inARow = 0
        await withTaskGroup(of: Result<Bool, RemoteStoreError>.self) { group in
            var next = 0
            func record(_ result: Result<Bool, RemoteStoreError>) {
                switch result {
                case .success(let copied):
                    inARow = 0
                    if copied { summary.copied += 1 } else { summary.skipped += 1 }
                case .failure(let error):
                    inARow += 1
                    summary.failed += 1
                    onError(error.message)
                }
            }
            while next < items.count || !group.isEmpty {
                while next < items.count, inARow < giveUpAfter, next - summary.copied - summary.skipped - summary.failed < max(1, concurrency) {
                    let item = items[next]
                    next += 1
                    group.addTask {
                        do throws(RemoteStoreError) { return .success(try await body(item)) } catch { return .failure(error) }
                    }
                }
                guard let result = await group.next() else { break }
                record(result)
                if inARow >= giveUpAfter, next < items.count {
                    summary.gaveUp = true
                    next = items.count
                }
            }
        }
        return summary
    }
}

extension Shard {
    /// Whether the cache key `key` (64 hex digits) is in this slice: by its first 16 hex digits,
    /// which are uniform (a SHA-256), and the same on every machine.
    public func contains(key: String) -> Bool {
        if count == 1 { return true }
        guard let value = UInt64(key.prefix(16), radix: 16) else { return false }
        return Int(value % UInt64(count)) == index - 1
    }
}
