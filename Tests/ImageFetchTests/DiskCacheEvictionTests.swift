import Foundation
import XCTest
@testable import ImageFetch

/// Incremental eviction: by-product originals go before outputs asked for, the candidate list
/// (`v1/evict`) is validated and can make imgfetch delete nothing a full LRU eviction would not,
/// promotion, and the running totals.
final class DiskCacheEvictionTests: TemporaryCacheTestCase {
    @discardableResult
    private static func store(_ cache: DiskCache, _ key: CacheKey, size: Int, kept: CacheEntry.Kept = .requested,
                              variant: String = "original") throws -> CacheStore {
        var entry = CacheEntry(key: key.rawValue, identity: key.rawValue, source: "https://example.com/\(key.rawValue.prefix(8))",
                               variant: variant, format: "png", width: 1, height: 1, bytes: 0, checksum: "",
                               created: FileSystem.now(), expires: nil)
        entry.kept = kept
        return try cache.storeReporting((0..<size).map { UInt8(truncatingIfNeeded: $0) }, entry: entry)
    }

    private func footprint(_ cache: DiskCache) -> Int64 {
        cache.allEntries().reduce(0) { $0 + $1.bytes + 512 }
    }

    private static let thumb = Processing(width: 64, height: 64)

    /// The 40-image case in small: each source's original (large, a by-product) and its thumbnail
    /// (small, asked for). A limit that holds every thumbnail keeps every thumbnail.
    func testByProductOriginalsAreEvictedBeforeAnyOutputAskedFor() throws {
        let limit: Int64 = 40 * (500 + 512) + 6 * (20_000 + 512)
        let cache = makeCache(sizeLimit: limit)
        var evicted = CacheRemoval()
        for i in 0..<40 {
            evicted.add(try Self.store(cache, Self.key("p\(i)"), size: 20_000, kept: .byproduct).evicted)
            evicted.add(try Self.store(cache, Self.key("p\(i)", Self.thumb), size: 500, variant: "64").evicted)
            XCTAssertLessThanOrEqual(footprint(cache), limit, "over the limit after source \(i)")
        }
        for i in 0..<40 { XCTAssertNotNil(cache.lookup(Self.key("p\(i)", Self.thumb)), "thumbnail \(i) asked for is kept") }
        XCTAssertNotNil(cache.lookup(Self.key("p39")), "the newest original is kept")
        XCTAssertNil(cache.lookup(Self.key("p0")), "the oldest original went first")
        let originals = cache.allEntries().filter(\.isOriginal)
        XCTAssertTrue(originals.allSatisfy { $0.kept == .byproduct }, "the field survives a round trip")
        XCTAssertEqual(evicted.count, 40 - originals.count, "every eviction is reported by the store that made it")
        XCTAssertEqual(cache.evictionTotals().evictions, Int64(evicted.count))
        XCTAssertEqual(cache.evictionTotals().evictedBytes, evicted.bytes)
        XCTAssertEqual(cache.statistics().byproducts, originals.count)
        XCTAssertEqual(cache.statistics().variants, 40, "by-products are originals, not variants")
        XCTAssertEqual(cache.statistics().originals, originals.count)
    }

    /// A list made while only outputs asked for were old enough is cut when a by-product arrives:
    /// the by-product, though newer, goes before them.
    func testANewerByProductGoesBeforeOutputsAlreadyListed() throws {
        let limit: Int64 = 10 * (1000 + 512)
        let cache = makeCache(sizeLimit: limit)
        let now = FileSystem.now()
        for i in 0..<10 {
            try Self.store(cache, Self.key("r\(i)"), size: 1000)
            FileSystem.touch(cache.dataPath(Self.key("r\(i)").rawValue, format: "png"), at: now - 1000 + Double(i))
        }
        try Self.store(cache, Self.key("r10"), size: 1000)   // over: a list of outputs asked for, one evicted
        XCTAssertNil(cache.lookup(Self.key("r0")))
        try Self.store(cache, Self.key("b"), size: 1000, kept: .byproduct)   // over again
        try Self.store(cache, Self.key("r11"), size: 1000)                    // and again: the by-product goes
        XCTAssertNil(cache.lookup(Self.key("b")), "the by-product went before outputs asked for")
        XCTAssertNil(cache.entry(forKey: Self.key("r1").rawValue), "the by-product's own store took the oldest output asked for")
        XCTAssertNotNil(cache.entry(forKey: Self.key("r2").rawValue), "and the next store the by-product, not another output")
        XCTAssertLessThanOrEqual(footprint(cache), limit)
    }

    func testAPromotedOriginalIsNoLongerEvictedFirst() throws {
        let cache = makeCache(sizeLimit: nil)
        try Self.store(cache, Self.key("o"), size: 1000, kept: .byproduct)
        let found = try XCTUnwrap(cache.lookup(Self.key("o")))
        XCTAssertEqual(found.entry.kept, .byproduct)
        let image = cache.dataPath(found.entry)
        XCTAssertEqual(try mode(image) & 0o200, 0, "a by-product's image lacks the owner-write bit")
        cache.promote(found.entry)
        XCTAssertEqual(cache.lookup(Self.key("o"))?.entry.kept, .requested)
        XCTAssertEqual(try mode(image) & 0o200, 0o200)
    }

    private func mode(_ path: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    /// A planted list naming entries used since, a torn one, one of the wrong size, a list naming a
    /// key whose files are links out of the cache: none makes a store remove more than LRU would.
    func testAPlantedOrTornCandidateListRemovesNothingALeastRecentlyUsedEvictionWouldNot() throws {
        let limit: Int64 = 10 * (1000 + 512)
        let cache = makeCache(sizeLimit: limit)
        let now = FileSystem.now()
        for i in 0..<10 {
            try Self.store(cache, Self.key("e\(i)"), size: 1000)
            FileSystem.touch(cache.dataPath(Self.key("e\(i)").rawValue, format: "png"), at: now - 1000 + Double(i))
        }
        let outside = NSTemporaryDirectory() + "imgfetch-outside-\(UUID().uuidString)"
        directories.append(outside)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: outside + "/victim"))
        let linked = String(repeating: "ab", count: 32)
        try FileManager.default.createDirectory(atPath: cache.root + "/ab", withIntermediateDirectories: true)
        for ext in ["meta", "png"] {
            try FileManager.default.createSymbolicLink(atPath: cache.root + "/ab/\(linked).\(ext)", withDestinationPath: outside + "/victim")
        }
        // Newest first, with access times older than the files': all used since they were "listed".
        var records = (0..<10).reversed().map { i in
            EvictionCandidates.Record(key: Self.key("e\(i)").rawValue, tier: 2, footprint: 1512, lastAccess: now - 5000)
        }
        records.insert(EvictionCandidates.Record(key: linked, tier: 1, footprint: 1512, lastAccess: now + 1e6), at: 0)
        var planted = EvictionCandidates.header(cursor: 0, count: records.count, firstRequested: 1)
        for r in records { planted += EvictionCandidates.encode(r) }
        let plantedVariants: [(String, [UInt8])] = [
            ("planted", planted),
            ("torn", Array(planted.prefix(planted.count - 7))),
            ("garbage", Array("imgfetch-evict 1 999999999999 000000000010 000000000000\n".utf8)),
            ("foreign", Array("hello\n".utf8)),
        ]
        for (i, (name, bytes)) in plantedVariants.enumerated() {
            try Data(bytes).write(to: URL(fileURLWithPath: cache.root + "/evict"))
            try Self.store(cache, Self.key("new-\(name)"), size: 1000)
            // Not `lookup`: a hit would make the entry the most recently used.
            XCTAssertNil(cache.entry(forKey: Self.key("e\(i)").rawValue), "\(name): the least recently used entry went")
            XCTAssertNotNil(cache.entry(forKey: Self.key("e\(i + 1)").rawValue), "\(name): and only it")
            XCTAssertLessThanOrEqual(footprint(cache), limit, name)
        }
        XCTAssertEqual(try String(contentsOfFile: outside + "/victim", encoding: .utf8), "precious")
        XCTAssertNotNil(try? FileManager.default.destinationOfSymbolicLink(atPath: cache.root + "/ab/\(linked).meta"),
                        "links named like an entry are not entries")
        for ext in ["meta", "png"] { try FileManager.default.removeItem(atPath: cache.root + "/ab/\(linked).\(ext)") }
        XCTAssertEqual(cache.verify(repair: false).problems.count, 0)
    }

    func testTheListFormatIsBoundedAndExact() {
        let r = EvictionCandidates.Record(key: String(repeating: "0f", count: 32), tier: 1, footprint: 12_345, lastAccess: 1_700_000_000.123456789)
        let line = EvictionCandidates.encode(r)
        XCTAssertEqual(line.count, EvictionCandidates.recordSize)
        XCTAssertEqual(EvictionCandidates.parseRecords(line), [r], "the access time round-trips exactly")
        let header = EvictionCandidates.header(cursor: 1, count: 2, firstRequested: 2)
        XCTAssertEqual(header.count, EvictionCandidates.headerSize)
        let size = Int64(header.count + 2 * line.count)
        XCTAssertEqual(EvictionCandidates.parseHeader(header, size: size)?.cursor, 1)
        XCTAssertNil(EvictionCandidates.parseHeader(header, size: size - 1), "a size that is not whole records")
        XCTAssertNil(EvictionCandidates.parseHeader(header, size: Int64(header.count)), "fewer records than counted")
        XCTAssertNil(EvictionCandidates.parseHeader(EvictionCandidates.header(cursor: 3, count: 2, firstRequested: 0), size: size),
                     "a cursor past the end")
        XCTAssertNil(EvictionCandidates.parseHeader(EvictionCandidates.header(cursor: 0, count: 70_000, firstRequested: 0),
                                                    size: Int64(56 + 70_000 * 101)), "more than maxCandidates")
        var bad = line
        bad[3] = UInt8(ascii: "G")
        XCTAssertNil(EvictionCandidates.parseRecords(bad), "a key that is not lowercase hex")
        var huge = Array(line.prefix(67)) + Array("ffffffffffffffff".utf8) + Array(line.suffix(23))
        XCTAssertNil(EvictionCandidates.parseRecords(huge), "a footprint out of bounds")
        huge = Array(line.prefix(84)) + Array(EvictionCandidates.hex16(Double.nan.bitPattern).utf8) + Array(line.suffix(6))
        XCTAssertNil(EvictionCandidates.parseRecords(huge), "an access time that is not a time")
        let named = EvictionCandidates.Record(key: r.key, tier: 2, footprint: 9, lastAccess: 5, ext: "webp")
        XCTAssertEqual(EvictionCandidates.parseRecords(EvictionCandidates.encode(named)), [named], "the image's extension")
        XCTAssertEqual(named.imageNames, [r.key + ".webp"], "a removal looks up that image only")
        XCTAssertEqual(r.imageNames.count, CacheLayout.imageExtensions.count, "no extension: every one")
        for planted in ["exe-", "j/g-", "../."] {
            let text = String(decoding: EvictionCandidates.encode(named), as: UTF8.self).replacingOccurrences(of: " webp\n", with: " \(planted)\n")
            XCTAssertNil(EvictionCandidates.parseRecords(Array(text.utf8)), "an extension that is not an image's: \(planted)")
        }
    }

    func testTheKeptFieldRoundTripsAndOldMetadataIsAskedFor() {
        var e = CacheEntry(key: String(repeating: "a", count: 64), identity: "i", source: "s", variant: "original", format: "png",
                           width: 1, height: 1, bytes: 1, checksum: "x", created: 1, expires: nil)
        XCTAssertEqual(CacheEntry.decode(e.encoded())?.kept, .requested)
        XCTAssertFalse(String(decoding: e.encoded(), as: UTF8.self).contains("kept"), "nothing new in an entry asked for")
        e.kept = .byproduct
        XCTAssertEqual(CacheEntry.decode(e.encoded())?.kept, .byproduct)
        let odd = String(decoding: e.encoded(), as: UTF8.self).replacingOccurrences(of: "kept\tbyproduct", with: "kept\tsomething")
        XCTAssertEqual(CacheEntry.decode(Array(odd.utf8))?.kept, .requested, "an unknown value is an output asked for")
    }

    /// A store killed after counting its bytes (or any drift) is repaired by the command's end.
    func testFitLimitBringsAnOverFullCacheWithinItsLimit() throws {
        let limit: Int64 = 5 * 1512
        let cache = makeCache(sizeLimit: limit)
        for i in 0..<5 { try Self.store(cache, Self.key("f\(i)"), size: 1000) }
        // Entries another process wrote without a limit.
        let unlimited = DiskCache(directory: cache.directory, sizeLimit: nil)
        for i in 5..<9 { try Self.store(unlimited, Self.key("f\(i)"), size: 1000) }
        try Data("\(9 * 1512)".utf8).write(to: URL(fileURLWithPath: cache.root + "/usage"))
        XCTAssertEqual(cache.fitLimit().count, 4)
        XCTAssertLessThanOrEqual(footprint(cache), limit)
        XCTAssertEqual(cache.fitLimit().count, 0, "nothing more once it fits")
    }

    /// 8 writers store into one small cache at once (by-products and outputs asked for, lists used
    /// up and rebuilt by several stores at a time, exact evictions beside stores in flight): the
    /// running total never counts less than the cache holds, and the cache ends within its limit.
    func testConcurrentStoresKeepTheRunningTotalAtLeastWhatTheCacheHolds() throws {
        for round in 0..<6 {
            let limit: Int64 = 24 * (3000 + 512)
            let cache = makeCache(sizeLimit: limit)
            let done = DispatchGroup()
            for writer in 0..<8 {
                done.enter()
                Thread.detachNewThread {
                    for i in 0..<30 {
                        _ = try? Self.store(cache, Self.key("w\(round)-\(writer)-\(i)"), size: 2000 + (writer * 131 + i * 17) % 2000,
                                            kept: i % 2 == 0 ? .byproduct : .requested)
                    }
                    done.leave()
                }
            }
            done.wait()
            let version = try XCTUnwrap(try cache.openVersion())
            let usage = try XCTUnwrap(cache.readUsage(version)?.total)
            let held = cache.scanTotal(version)
            XCTAssertGreaterThanOrEqual(usage, held, "round \(round): the total counts at least what is there")
            XCTAssertLessThanOrEqual(held, limit, "round \(round): within the limit once every store returned")
        }
    }
}
