import XCTest
@testable import ImageFetch

/// A partial read (an entry made from a progressive JPEG's first scans, `CacheEntry.partial`) is
/// never shared: `cache push` leaves it out, as the pipeline's uploads do, and `cache pull` skips
/// one found in the store (issue 41).
final class RemoteSyncPartialTests: TemporaryCacheTestCase {
    private func events(_ run: RemoteSync.Events) async -> RemoteSyncSummary? {
        var last: RemoteSyncSummary?
        for await event in run { if case .finished(let summary) = event { last = summary } }
        return last
    }

    /// A public, shareable entry of `name` at 64 px; `partial` as a partial read's.
    private func entry(_ name: String, _ bytes: [UInt8], partial: Bool) -> CacheEntry {
        let key = Self.key(name, Processing(width: 64, height: 64))
        let now = FileSystem.now()
        var entry = CacheEntry(key: key.rawValue, identity: "https://example.com/\(name)", source: "https://example.com/\(name)",
                               variant: "64x64" + (partial ? "-partial" : ""), format: "jpeg", width: 64, height: 48,
                               bytes: Int64(bytes.count), checksum: Checksum.string(bytes), created: now, expires: now + 3600)
        entry.response = StoredResponse(status: 200, requestTime: now, responseTime: now, defaultTTL: 3600,
                                        headers: HTTPHeaders([("Cache-Control", "public, max-age=3600")]))
        entry.partial = partial
        return entry
    }

    func testPushLeavesPartialReadsOut() async throws {
        let cache = makeCache(sizeLimit: nil)
        let whole = entry("whole.jpg", Array("whole image".utf8), partial: false)
        let partial = entry("progressive.jpg", Array("first scans".utf8), partial: true)
        try cache.store(Array("whole image".utf8), entry: whole)
        try cache.store(Array("first scans".utf8), entry: partial)
        XCTAssertEqual(cache.entry(forKey: partial.key)?.partial, true, "the local cache holds the partial read")
        let store = FakeRemoteStore()
        let pushed = await events(RemoteSync.push(cache, to: store))
        let summary = try XCTUnwrap(pushed)
        XCTAssertEqual([summary.copied, summary.skipped, summary.failed], [1, 1, 0])
        XCTAssertEqual(Set(store.puts), [whole.key + ".jpg", whole.key + ".meta"], "only the whole file's entry is uploaded")
    }

    func testPullSkipsAPartialReadInTheStore() async throws {
        let store = FakeRemoteStore()
        let whole = entry("whole.jpg", Array("whole image".utf8), partial: false)
        let partial = entry("progressive.jpg", Array("first scans".utf8), partial: true)
        for (e, bytes) in [(whole, "whole image"), (partial, "first scans")] {
            store.set(e.key + ".meta", e.encoded())
            store.set(e.key + ".jpg", Array(bytes.utf8))
        }
        let cache = makeCache(sizeLimit: nil)
        let pulled = await events(RemoteSync.pull(from: store, into: cache))
        let summary = try XCTUnwrap(pulled)
        XCTAssertEqual([summary.copied, summary.skipped, summary.failed], [1, 1, 0])
        XCTAssertNotNil(cache.entry(forKey: whole.key))
        XCTAssertNil(cache.entry(forKey: partial.key), "the partial read is not stored")
        XCTAssertFalse(store.gets.contains(partial.key + ".jpg"), "nor its image read")
    }
}
