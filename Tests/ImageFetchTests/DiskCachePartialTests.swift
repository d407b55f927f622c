import Foundation
import XCTest
@testable import ImageFetch

/// Partial downloads in the size limit: counted in the running total as they are kept and removed,
/// and taken before any entry when a store needs room.
final class DiskCachePartialTests: TemporaryCacheTestCase {
    private static func store(_ cache: DiskCache, _ name: String, size: Int) throws {
        let key = key(name)
        let entry = CacheEntry(key: key.rawValue, identity: key.rawValue, source: "https://example.com/\(name)",
                               variant: "original", format: "png", width: 1, height: 1, bytes: 0, checksum: "",
                               created: FileSystem.now(), expires: nil)
        _ = try cache.storeReporting([UInt8](repeating: 7, count: size), entry: entry)
    }

    private func total(_ cache: DiskCache) throws -> Int64 {
        let text = try String(contentsOfFile: cache.root + "/usage", encoding: .utf8)
        return Int64(text.split(separator: " ").first ?? "") ?? -1
    }

    private func partialFiles(_ cache: DiskCache) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache.root + "/partial")) ?? []).sorted()
    }

    private func onDisk(_ cache: DiskCache) -> Int64 {
        let entries = cache.allEntries().reduce(Int64(0)) { $0 + $1.bytes + 512 }
        let partials = partialFiles(cache).reduce(Int64(0)) { sum, name in
            sum + ((try? FileManager.default.attributesOfItem(atPath: cache.root + "/partial/" + name)[.size] as? Int64) ?? 0)
        }
        return entries + partials
    }

    func testAPartialIsCountedWhenKeptAndWhenRemoved() throws {
        let cache = makeCache(sizeLimit: 1 << 20)
        try Self.store(cache, "a", size: 1000)
        let before = try total(cache)
        let slot = try XCTUnwrap(cache.partialSlot(for: Self.key("p")))
        slot.save(.init(bytes: [UInt8](repeating: 1, count: 5000), validator: "\"v1\"", total: 10_000))
        XCTAssertEqual(partialFiles(cache).count, 2, "a part and its meta")
        XCTAssertEqual(try total(cache), onDisk(cache), "the total counts the partial's two files")
        XCTAssertGreaterThan(try total(cache), before + 5000)
        slot.save(.init(bytes: [UInt8](repeating: 2, count: 7000), validator: "\"v1\"", total: 10_000))
        XCTAssertEqual(try total(cache), onDisk(cache), "a partial replaced is subtracted")
        slot.remove()
        XCTAssertEqual(try total(cache), before, "a partial removed is subtracted")
        XCTAssertEqual(partialFiles(cache), [])
    }

    func testPartialsAreTrimmedBeforeAnyEntry() throws {
        let limit: Int64 = 10 * 1512 + 6000
        let cache = makeCache(sizeLimit: limit)
        for i in 0..<10 { try Self.store(cache, "e\(i)", size: 1000) }
        let slot = try XCTUnwrap(cache.partialSlot(for: Self.key("p")))
        slot.save(.init(bytes: [UInt8](repeating: 1, count: 1500), validator: "\"v1\"", total: 9000))
        XCTAssertEqual(partialFiles(cache).count, 2)
        // This store takes the cache over its limit: the partial goes, every entry stays.
        try Self.store(cache, "e10", size: 4700)
        XCTAssertEqual(partialFiles(cache), [], "the partial went first")
        for i in 0...10 { XCTAssertNotNil(cache.lookup(Self.key("e\(i)")), "entry \(i) stays") }
        XCTAssertLessThanOrEqual(onDisk(cache), limit)
        XCTAssertGreaterThanOrEqual(try total(cache), onDisk(cache), "the total never counts less than the cache holds")
    }

    func testAScanCountsPartialsAndPruneSubtractsWhatItRemoves() throws {
        let cache = makeCache(sizeLimit: 1 << 20)
        try Self.store(cache, "a", size: 1000)
        let slot = try XCTUnwrap(cache.partialSlot(for: Self.key("p")))
        slot.save(.init(bytes: [UInt8](repeating: 1, count: 3000), validator: "\"v1\"", total: 9000))
        try FileManager.default.removeItem(atPath: cache.root + "/usage")
        try Self.store(cache, "b", size: 1000)   // no total: the store counts the cache, partials included
        XCTAssertEqual(try total(cache), onDisk(cache))
        // An old partial is removed by prune, and subtracted.
        let meta = try XCTUnwrap(partialFiles(cache).first { $0.hasSuffix(".pmeta") })
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -2 * 86_400)],
                                              ofItemAtPath: cache.root + "/partial/" + meta)
        cache.removePartials(all: false)
        XCTAssertEqual(partialFiles(cache), [])
        XCTAssertEqual(try total(cache), onDisk(cache))
    }
}
