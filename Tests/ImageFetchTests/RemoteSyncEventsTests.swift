import XCTest
@testable import ImageFetch

/// `cache push` and `cache pull` hand their failures and summary back as values, in order (no
/// callback into the library): each failure as it happens, the summary last.
final class RemoteSyncEventsTests: TemporaryCacheTestCase {
    func events(_ run: RemoteSync.Events) async -> [RemoteSyncEvent] {
        var all: [RemoteSyncEvent] = []
        for await event in run { all.append(event) }
        return all
    }

    func testAPullTellsEachFailureThenItsSummary() async throws {
        let store = FakeRemoteStore()
        _ = seedRemote(store, .http("https://example.com/good.png"), bytes: Array("good".utf8), expires: nil)
        let bad = seedRemote(store, .http("https://example.com/bad.png"), bytes: Array("bad!".utf8), expires: nil)
        store.set(bad.key + ".png", Array("tampered".utf8))
        let all = await events(RemoteSync.pull(from: store, into: makeCache(sizeLimit: nil)))
        XCTAssertEqual(all.count, 2, "\(all)")
        guard case .failure(let message) = all.first else { return XCTFail("a failure first: \(all)") }
        XCTAssertTrue(message.contains(String(bad.key.prefix(12))), message)
        guard case .finished(let summary) = all.last else { return XCTFail("the summary last: \(all)") }
        XCTAssertEqual([summary.copied, summary.skipped, summary.failed], [1, 0, 1])
    }

    func testAPushToAStoreThatIsDownGivesUpAndSaysSo() async throws {
        let cache = makeCache(sizeLimit: nil)
        for n in 0..<12 {
            let key = Self.key("p\(n).png")
            let bytes = Array("image \(n)".utf8)
            let now = FileSystem.now()
            var entry = CacheEntry(key: key.rawValue, identity: "https://example.com/p\(n).png", source: "https://example.com/p\(n).png",
                                   variant: Processing.original.identifier, format: "png", width: 1, height: 1,
                                   bytes: Int64(bytes.count), checksum: "", created: now, expires: now + 3600, etag: nil)
            entry.response = StoredResponse(status: 200, requestTime: now, responseTime: now, defaultTTL: 3600, headers: HTTPHeaders([]))
            try cache.store(bytes, entry: entry)
        }
        let store = FakeRemoteStore()
        store.fail(with: RemoteStoreError("store.test: connection refused"))
        let all = await events(RemoteSync.push(cache, to: store, concurrency: 1))
        let failures = all.filter { if case .failure = $0 { true } else { false } }
        XCTAssertEqual(failures, Array(repeating: .failure("store.test: connection refused"), count: RemoteSync.giveUpAfter))
        guard case .finished(let summary) = all.last else { return XCTFail("the summary last: \(all)") }
        XCTAssertEqual(summary.failed, RemoteSync.giveUpAfter)
        XCTAssertTrue(summary.gaveUp)
    }
}
