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
    /// Why a pull stopped reading the store's listing before its end (a listing that would never
    /// end: a repeated continuation token, a page with nothing new, too many pages or too long);
    /// nil when the listing ended as it should. A stopped listing counts as one failure.
    public var listingStopped: String?
    /// Failures at the end of the run with no success after them (carried from page to page).
    var failuresInARow = 0
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
    /// is one a shared cache may not hold (`mayShare`). Its events: each failure as it happens,
    /// then the summary (`RemoteSync.Events`).
    public static func push(_ cache: DiskCache, to store: any RemoteStoring, concurrency: Int = defaultConcurrency) -> Events {
        Events.start { events in await pushing(cache, to: store, concurrency: concurrency, events: events) }
    }

    static func pushing(_ cache: DiskCache, to store: any RemoteStoring, concurrency: Int,
                        events: Channel) async -> RemoteSyncSummary {
        var entries: [CacheEntry] = []
        cache.forEachEntry { entry in
            entries.append(entry)
            return true
        }
        return await run(entries, concurrency: concurrency, events: events) { entry throws(RemoteStoreError) -> Bool in
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

    /// Listing pages a pull reads at most (S3 sends up to 1000 names a page). Default 100,000.
    public static let maxListingPages = 100_000
    /// The longest a pull waits for listing pages, all pages together. Default one hour.
    public static let maxListingTime: Duration = .seconds(3600)
    /// Image bytes a pull's transfers hold in memory at once (each object is read whole before it
    /// is checked), or its `maxBytes` when that is larger: one object never waits for itself.
    /// Default 128 MiB.
    public static let maxBytesInFlight: Int64 = 128 << 20

    /// Pulls every `<key>.meta` the store lists (in `shard` when given, by key) that is not
    /// already valid locally: GET the metadata (its key must be the listed one, its size at most
    /// `maxBytes`), GET the image (at most its stated size), check size and checksum, store it.
    /// Metadata of a partial read is skipped (never shared: `mayShare`). Its events: each failure as it happens, then the summary (`RemoteSync.Events`).
    ///
    /// The listing is hostile too: it stops (`listingStopped`, one failure) at a continuation token
    /// already sent, at a page that claims more but lists no name not seen before, and after
    /// `maxPages` pages or `maxListingTime` spent waiting for them.
    public static func pull(from store: any RemoteStoring, into cache: DiskCache, shard: Shard? = nil,
                            concurrency: Int = defaultConcurrency, maxBytes: Int64 = Int64(Int32.max),
                            maxPages: Int = maxListingPages, maxListingTime: Duration = maxListingTime) -> Events {
        Events.start { events in
            await pulling(from: store, into: cache, shard: shard, concurrency: concurrency, maxBytes: maxBytes,
                          maxPages: maxPages, maxListingTime: maxListingTime, events: events)
        }
    }

    static func pulling(from store: any RemoteStoring, into cache: DiskCache, shard: Shard?, concurrency: Int, maxBytes: Int64,
                        maxPages: Int, maxListingTime: Duration, events: Channel) async -> RemoteSyncSummary {
        var total = RemoteSyncSummary()
        // However many transfers run at once, their objects together stay under the budget.
        let budget = ByteBudget(limit: max(maxBytesInFlight, maxBytes))
        var token: String?
        var sentTokens = Set<String>()
        var seenNames = Set<String>()
        var seen = Set<String>()
        var pages = 0
        var listing = Duration.zero
        let clock = ContinuousClock()
        func stop(_ why: String) async -> RemoteSyncSummary {
            let message = "remote cache \(store.description): listing stopped after \(pages) pages: \(why)"
            await events.send(.failure(message))
            total.listingStopped = message
            total.failed += 1
            return total
        }
        repeat {
            let page: RemoteListing
            let started = clock.now
            do { page = try await store.list(continuation: token) } catch {
                await events.send(.failure(error.message))
                total.failed += 1
                return total
            }
            listing += clock.now - started
            pages += 1
            var fresh = false
            for name in page.names where seenNames.insert(name).inserted { fresh = true }
            let keys = page.names.compactMap { name -> String? in
                guard name.hasSuffix(".meta"), HTTPRemoteStore.isCacheObjectName(name.utf8) else { return nil }
                let key = String(name.prefix(64))
                guard shard?.contains(key: key) ?? true, seen.insert(key).inserted else { return nil }
                return key
            }
            // Failures in a row carry over from page to page: a listing of ever new keys that all
            // fail is a store that fails.
            let part = await run(keys, concurrency: concurrency, failuresInARow: total.failuresInARow, events: events) { key throws(RemoteStoreError) -> Bool in
                try await pullOne(key, from: store, into: cache, maxBytes: maxBytes, budget: budget)
            }
            total.copied += part.copied
            total.skipped += part.skipped
            total.failed += part.failed
            total.failuresInARow = part.failuresInARow
            if part.gaveUp || (part.failuresInARow >= giveUpAfter && page.continuation != nil) {
                total.gaveUp = true
                return total
            }
            guard let next = page.continuation else { break }
            // A store that always says "more" would keep the run going forever, a signed request
            // at a time: each page must bring something new and lead somewhere not yet visited.
            // Digests, not the tokens: a token may be 4 KiB, and there may be many pages.
            if let token { sentTokens.insert(SHA256.hex(token)) }
            if next == token || sentTokens.contains(SHA256.hex(next)) { return await stop("the store sent a continuation token again") }
            if !fresh { return await stop("a page that claims more lists nothing new") }
            if pages >= maxPages { return await stop("more than \(maxPages) pages") }
            if listing >= maxListingTime { return await stop("the listing took longer than \(maxListingTime.components.seconds) s") }
            token = next
        } while true
        return total
    }

    /// Whether a shared cache may hold `entry`: the pipeline's own upload rule
    /// (`StoredResponse.mayBeStoredByASharedCache`: http(s) entries only, never `private` or
    /// `no-store`, a credentialed request's only when `public`). An entry was fetched with
    /// credentials when its identity holds a credential digest (URL user information) or when it
    /// records that it was asked for with headers, a cookie, `-u` or a netrc file (`shaped`).
    /// A partial read (made from a progressive JPEG's first scans) is never shared, as the
    /// pipeline never uploads one: it is not the whole file's image.
    static func mayShare(_ entry: CacheEntry) -> Bool {
        !entry.partial && entry.mayBeShared(credentialed: entry.identity.contains("hmac-sha256=") || entry.shaped)
    }

    /// One entry pulled: false when it is already valid locally.
    static func pullOne(_ key: String, from store: any RemoteStoring, into cache: DiskCache,
                        maxBytes: Int64, budget: ByteBudget) async throws(RemoteStoreError) -> Bool {
        if let local = cache.entry(forKey: key), cache.verifiedImage(of: local) != nil { return false }
        let what = "remote cache \(store.description): \(key.prefix(12))"
        guard let meta = try await store.get(RemoteCache.metaName(key), maxBytes: RemoteCache.maxMetaBytes) else {
            throw RemoteStoreError("\(what): the listed metadata is gone")
        }
        // The same checks as a remote hit's (RemoteCache.lookup).
        let entry: CacheEntry
        switch RemoteCache.verifiedEntry(meta, key: key, maxBytes: maxBytes) {
        case .success(let verified): entry = verified
        case .failure(let problem): throw RemoteStoreError("\(what): \(problem.reason)")
        }
        // A partial read another build (or a planted object) left in the store is not taken: skipped.
        if entry.partial { return false }
        await budget.acquire(entry.bytes)
        var failure: RemoteStoreError?
        do throws(RemoteStoreError) {
            guard let bytes = try await store.get(RemoteCache.dataName(entry), maxBytes: entry.bytes) else {
                throw RemoteStoreError("\(what): the image is missing")
            }
            if let problem = RemoteCache.mismatch(bytes, of: entry) { throw RemoteStoreError("\(what): \(problem.reason)") }
            // A pulled original serves only to derive other sizes: a by-product, as a kept one is.
            var pulled = entry
            pulled.kept = entry.isOriginal ? .byproduct : .requested
            do { try cache.store(bytes, entry: pulled) } catch {
                throw RemoteStoreError("\(what): cannot store it locally: \(error)")
            }
        } catch {
            failure = error
        }
        await budget.release(entry.bytes)
        if let failure { throw failure }
        return true
    }

    /// Runs `body` over `items`, `concurrency` at a time, in order of start; stops starting new ones
    /// after `giveUpAfter` failures in a row (`failuresInARow` of them before this call).
    static func run<T: Sendable>(_ items: [T], concurrency: Int, failuresInARow: Int = 0, events: Channel,
                                 _ body: @escaping @Sendable (T) async throws(RemoteStoreError) -> Bool) async -> RemoteSyncSummary {
        var summary = RemoteSyncSummary()
        var inARow = failuresInARow
        await withTaskGroup(of: Result<Bool, RemoteStoreError>.self) { group in
            var next = 0
            func record(_ result: Result<Bool, RemoteStoreError>) async {
                switch result {
                case .success(let copied):
                    inARow = 0
                    if copied { summary.copied += 1 } else { summary.skipped += 1 }
                case .failure(let error):
                    inARow += 1
                    summary.failed += 1
                    await events.send(.failure(error.message))
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
                await record(result)
                if inARow >= giveUpAfter, next < items.count {
                    summary.gaveUp = true
                    next = items.count
                }
            }
        }
        summary.failuresInARow = inARow
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

/// Bytes that may be in use at once: `acquire` waits (first come, first served) until `n` more fit
/// under `limit`; `release` gives them back. A request larger than `limit` is taken as `limit`.
actor ByteBudget {
    let limit: Int64
    private var inUse: Int64 = 0
    private var waiting: [(bytes: Int64, continuation: CheckedContinuation<Void, Never>)] = []

    init(limit: Int64) { self.limit = max(1, limit) }

    func acquire(_ n: Int64) async {
        let n = min(max(0, n), limit)
        if waiting.isEmpty, inUse + n <= limit {
            inUse += n
            return
        }
        await withCheckedContinuation { waiting.append((n, $0)) }
    }

    func release(_ n: Int64) {
        inUse -= min(max(0, n), limit)
        while let first = waiting.first, inUse + first.bytes <= limit {
            waiting.removeFirst()
            inUse += first.bytes
            first.continuation.resume()
        }
    }
}
