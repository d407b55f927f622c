import Foundation
import XCTest
@testable import ImageFetch

/// Eviction at scale: a store into a full cache trims it to the low-water mark once per cycle (not a
/// scan per store), the limit stays hard, the usage hint is corrected by a scan, links are not followed.
final class DiskCacheTrimTests: TemporaryCacheTestCase {
    private static func store(_ cache: DiskCache, _ name: String, width: Int = 1) throws {
        let key = key(name)
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &+ width) }
        try cache.store(bytes, entry: CacheEntry(key: key.rawValue, identity: "https://example.com/\(name)",
                                                 source: "https://example.com/\(name)", variant: "original", format: "png",
                                                 width: width, height: 1, bytes: 0, checksum: "", created: FileSystem.now(), expires: nil))
    }

    /// Bytes on disk of the entries' files, counted as the limit counts them (image + 512).
    private func footprint(_ cache: DiskCache) -> Int64 {
        cache.allEntries().reduce(0) { $0 + $1.bytes + 512 }
    }

    private func usage(_ cache: DiskCache) -> String {
        (try? String(contentsOfFile: cache.root + "/usage", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? ""
    }

    /// The candidate list's inode: a new one each time a scan replaces the list.
    private func candidatesInode(_ cache: DiskCache) -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: cache.root + "/evict"))?[.systemFileNumber] as? UInt64
    }

    func testAFullCacheIsScannedOncePerCycleAndNeverGoesOverTheLimit() throws {
        let entry: Int64 = 1000 + 512
        let limit = 50 * entry
        let cache = makeCache(sizeLimit: limit)
        let now = FileSystem.now()
        for i in 0..<50 {
            try Self.store(cache, "fill-\(i)")
            FileSystem.touch(cache.dataPath(Self.key("fill-\(i)").rawValue, format: "png"), at: now - 10_000 + Double(i))
        }
        XCTAssertEqual(cache.allEntries().count, 50, "exactly full")
        var scans = 0
        var inode: UInt64?
        for i in 0..<60 {
            let stored = try cache.storeReporting((0..<1000).map { UInt8(truncatingIfNeeded: $0) },
                                                  entry: CacheEntry(key: Self.key("more-\(i)").rawValue, identity: "m\(i)", source: "m\(i)",
                                                                    variant: "original", format: "png", width: 1, height: 1, bytes: 0,
                                                                    checksum: "", created: FileSystem.now(), expires: nil))
            XCTAssertEqual(stored.evicted.count, 1, "store \(i) into a full cache evicts one entry of its size")
            let now = candidatesInode(cache)
            if now != inode { scans += 1; inode = now }
            XCTAssertLessThanOrEqual(footprint(cache), limit, "over the limit after store \(i)")
            XCTAssertNotNil(cache.lookup(Self.key("more-\(i)")), "the entry just stored stays")
        }
        // 60 stores over a full cache of 50: a scan lists 20% of the limit (10 entries), so one scan
        // per 10 stores, not one per store.
        XCTAssertGreaterThanOrEqual(scans, 5)
        XCTAssertLessThanOrEqual(scans, 7, "scans: \(scans)")
        // Least recently used first: the oldest fill entries went, the newest stores stayed.
        XCTAssertNil(cache.lookup(Self.key("fill-0")))
        XCTAssertNotNil(cache.lookup(Self.key("more-59")))
        XCTAssertEqual(usage(cache), String(footprint(cache)), "the usage total stays exact")
        XCTAssertEqual(cache.evictionTotals().evictions, 60, "every eviction is counted")
        XCTAssertEqual(cache.evictionTotals().evictedBytes, 60_000)
    }

    func testAUsageHintThatLiesIsCorrectedByAScan() throws {
        let limit: Int64 = 10 * 1512
        let cache = makeCache(sizeLimit: limit)
        for i in 0..<5 { try Self.store(cache, "a\(i)") }
        for lie in ["-999999999", "garbage", "99999999999999999999999", ""] {
            try Data(lie.utf8).write(to: URL(fileURLWithPath: cache.root + "/usage"))
            try Self.store(cache, "lie-\(lie.count)")
            XCTAssertLessThanOrEqual(footprint(cache), limit, "after a usage file of \(lie)")
            XCTAssertEqual(usage(cache), String(footprint(cache)), "rescanned after a usage file of '\(lie)'")
        }
        // A huge (but numeric) hint makes the next store trim: the scan corrects it.
        try Data("9223372036854775807".utf8).write(to: URL(fileURLWithPath: cache.root + "/usage"))
        try Self.store(cache, "after-max")
        XCTAssertLessThanOrEqual(footprint(cache), limit)
        XCTAssertEqual(usage(cache), String(footprint(cache)), "a trim writes the scanned total")
    }

    func testEvictionNeverFollowsALinkOutOfTheCache() throws {
        let cache = makeCache(sizeLimit: nil)
        try Self.store(cache, "real")
        let outside = NSTemporaryDirectory() + "imgfetch-outside-\(UUID().uuidString)"
        directories.append(outside)
        let fm = FileManager.default
        try fm.createDirectory(atPath: outside + "/ab", withIntermediateDirectories: true)
        let victim = String(repeating: "ab", count: 32)
        for name in [victim + ".meta", victim + ".png"] {
            try Data("precious".utf8).write(to: URL(fileURLWithPath: outside + "/ab/" + name))
        }
        // A shard directory that is a link to the outside directory, and links named like an entry.
        try fm.createSymbolicLink(atPath: cache.root + "/ab", withDestinationPath: outside + "/ab")
        let realShard = cache.root + "/" + String(Self.key("real").rawValue.prefix(2))
        let fake = String(Self.key("real").rawValue.prefix(2)) + String(repeating: "0", count: 62)
        try fm.createSymbolicLink(atPath: realShard + "/\(fake).meta", withDestinationPath: outside + "/ab/\(victim).meta")
        try fm.createSymbolicLink(atPath: realShard + "/\(fake).png", withDestinationPath: outside + "/ab/\(victim).png")
        try Data("junk".utf8).write(to: URL(fileURLWithPath: realShard + "/not-a-key.meta"))

        let removed = cache.evict(toFit: 0)
        XCTAssertEqual(removed.count, 1, "the real entry; links named like an entry are not entries")
        for name in [victim + ".meta", victim + ".png"] {
            XCTAssertEqual(try String(contentsOfFile: outside + "/ab/" + name, encoding: .utf8), "precious", "\(name) outside the cache")
        }
        XCTAssertNil(cache.lookup(Self.key("real")))
        XCTAssertTrue(fm.fileExists(atPath: realShard + "/not-a-key.meta"), "a name that is not a key is not an entry")
    }
}
