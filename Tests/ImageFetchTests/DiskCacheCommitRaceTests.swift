import Foundation
import XCTest
@testable import ImageFetch

/// A store's commit against an eviction of the same key (issue 41): eviction removes an entry's
/// metadata, then its image; a store renames its image, then its metadata. Interleaved (the
/// removal's two unlinks around the store's image rename) they left the new metadata without its
/// image, which `cache verify` reports. Each `withLock` opens the lock file anew, so two threads
/// exclude each other by `flock` as two processes do.
final class DiskCacheCommitRaceTests: TemporaryCacheTestCase {
    func testAStoreRacingAnEvictionOfItsKeyNeverLeavesMetadataWithoutItsImage() throws {
        let writer = makeCache(sizeLimit: nil)
        let evictor = DiskCache(directory: writer.directory, sizeLimit: nil)
        let keys = (0..<4).map { Self.key("race\($0).png").rawValue }
        let bytes = [UInt8](repeating: 7, count: 2_000)
        @Sendable func store(_ key: String) {
            let entry = CacheEntry(key: key, identity: key, source: "https://example.com/race", variant: "original", format: "png",
                                   width: 1, height: 1, bytes: 0, checksum: "", created: FileSystem.now(), expires: nil)
            _ = try? writer.store(bytes, entry: entry)
        }
        let deadline = Date().addingTimeInterval(4)
        var rounds = 0
        while Date() < deadline {
            rounds += 1
            for key in keys { store(key) }
            // Both at once: the writer stores every key again while the evictor removes them all.
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                if i == 0 { for key in keys { store(key) } } else { evictor.evict(toFit: 0) }
            }
            let problems = writer.verify(repair: false).problems
            if !problems.isEmpty {
                return XCTFail("round \(rounds): \(problems.map(\.reason))")
            }
        }
        XCTAssertGreaterThan(rounds, 10, "the race was tried")
    }

    /// A metadata refresh (a 304, a promotion) of an entry evicted since it was read writes nothing:
    /// the entry stays gone, never its metadata alone.
    func testARefreshOfAnEvictedEntryLeavesNoMetadataWithoutItsImage() throws {
        let cache = makeCache(sizeLimit: nil)
        let key = Self.key("refreshed.png").rawValue
        let entry = CacheEntry(key: key, identity: key, source: "https://example.com/refreshed.png", variant: "original", format: "png",
                               width: 1, height: 1, bytes: 0, checksum: "", created: FileSystem.now(), expires: nil)
        try cache.store([UInt8](repeating: 1, count: 500), entry: entry)
        let read = try XCTUnwrap(cache.lookup(rawKey: key)).entry
        cache.evict(toFit: 0)
        try cache.refresh(read)
        XCTAssertNil(cache.entry(forKey: key), "the evicted entry stays gone")
        XCTAssertEqual(cache.verify(repair: false).problems.map(\.reason), [])
    }
}
