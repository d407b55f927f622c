import Foundation
import XCTest
@testable import ImageFetch

/// The low-data index (`v1/lowdata/`): found only while its entry names the request back, never
/// past a hostile file, and removed with the entry by each removal.
final class DiskCacheLowDataTests: TemporaryCacheTestCase {
    private let original = TemporaryCacheTestCase.key("photo.jpg", Processing(width: 50, height: 50))
    private let lowData = TemporaryCacheTestCase.key("small.jpg", Processing(width: 50, height: 50))

    /// Stores the low-data entry of `original` (`size` bytes) and its index.
    private func storeLowData(_ cache: DiskCache, size: Int = 100) throws {
        var entry = CacheEntry(key: lowData.rawValue, identity: lowData.rawValue, source: "https://example.com/small.jpg",
                               variant: "w50", format: "png", width: 1, height: 1, bytes: 0, checksum: "",
                               created: FileSystem.now(), expires: nil)
        entry.lowDataOf = original.rawValue
        try cache.store((0..<size).map { UInt8(truncatingIfNeeded: $0) }, entry: entry)
        cache.indexLowData(lowData, source: "https://example.com/small.jpg", for: original)
    }

    private func indexPath(_ cache: DiskCache) -> String { cache.root + "/lowdata/" + original.rawValue }

    func testTheIndexFindsTheEntryThatNamesTheRequestBack() throws {
        let cache = makeCache(sizeLimit: nil)
        XCTAssertNil(cache.lowDataEntry(for: original))
        try storeLowData(cache)
        let found = try XCTUnwrap(cache.lowDataEntry(for: original))
        XCTAssertEqual(found.cached.entry.key, lowData.rawValue)
        XCTAssertEqual(found.source, "https://example.com/small.jpg")
        XCTAssertNil(cache.lowDataEntry(for: lowData), "no index of its own")
        XCTAssertNil(cache.claim(), "the index is a name of the layout")
        // The same entry stored again for another use no longer names the request: not served.
        var plain = try XCTUnwrap(cache.entry(forKey: lowData.rawValue))
        plain.lowDataOf = nil
        try cache.store((0..<100).map { UInt8(truncatingIfNeeded: $0) }, entry: plain)
        XCTAssertNil(cache.lowDataEntry(for: original))
        XCTAssertEqual(cache.verify(repair: true).problems.map(\.key), [original.rawValue], "an index that finds nothing")
        XCTAssertFalse(FileManager.default.fileExists(atPath: indexPath(cache)))
    }

    func testAHostileIndexFindsNothing() throws {
        let cache = makeCache(sizeLimit: nil)
        try storeLowData(cache)
        let path = indexPath(cache)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        for text in ["", "imgfetch-low-data 1\n\(lowData.rawValue)\nftp://x/y\n", "imgfetch-low-data 1\n../../etc\nhttps://a/b\n",
                     "imgfetch-low-data 1\n\(original.rawValue)\nhttps://a/b\n", String(repeating: "x", count: 100_000)] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            XCTAssertNil(cache.lowDataEntry(for: original), text.prefix(60).debugDescription)
        }
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: NSTemporaryDirectory())
        XCTAssertNil(cache.lowDataEntry(for: original), "a link is not read")
        try FileManager.default.removeItem(atPath: path)
        try good.write(to: URL(fileURLWithPath: path))
        XCTAssertNotNil(cache.lowDataEntry(for: original))
    }

    func testEveryRemovalTakesTheIndexWithTheEntry() throws {
        let removals: [(String, (DiskCache) -> Void)] = [
            ("remove", { cache in _ = cache.remove(cache.entry(forKey: self.lowData.rawValue)!) }),
            ("clear", { cache in _ = cache.clear() }),
            ("a store's eviction", { cache in
                FileSystem.touch(cache.dataPath(self.lowData.rawValue, format: "png"), at: FileSystem.now() - 1000)
                try? Self.fill(cache)
            }),
            ("exact eviction", { cache in _ = cache.evict(toFit: 0) }),
        ]
        for (name, remove) in removals {
            let cache = makeCache(sizeLimit: 3000)
            try storeLowData(cache)
            XCTAssertTrue(FileManager.default.fileExists(atPath: indexPath(cache)), name)
            remove(cache)
            XCTAssertNil(cache.entry(forKey: lowData.rawValue), "\(name): the entry is gone")
            XCTAssertFalse(FileManager.default.fileExists(atPath: indexPath(cache)), "\(name): its index with it")
        }
    }

    /// Newer entries that take the cache over its limit: the store's own eviction takes the oldest.
    private static func fill(_ cache: DiskCache) throws {
        for i in 0..<3 {
            let entry = CacheEntry(key: key("fill\(i)").rawValue, identity: "f\(i)", source: "https://example.com/f\(i)",
                                   variant: "original", format: "png", width: 1, height: 1, bytes: 0, checksum: "",
                                   created: FileSystem.now(), expires: nil)
            try cache.store([UInt8](repeating: 7, count: 900), entry: entry)
        }
    }
}
