import Foundation
import XCTest
@testable import ImageFetch

/// A limit lowered 5% under a large cache whose entries were all written within a minute (one
/// prefetch), then stores one at a time as `get`s make them (deferred scans, each its own process's
/// `DiskCache`, the background scan run when a store asks for it): the first store deletes about
/// the excess, and 40 stores later the cache still holds at least 90% of the limit (issue 41).
final class DiskCacheLimitKeepsTests: TemporaryCacheTestCase {
    static let entries = 30_000
    static let thumbnail = Processing(width: 64, height: 64)

    private static func entry(_ name: String) -> CacheEntry {
        let key = key(name, thumbnail).rawValue
        return CacheEntry(key: key, identity: key, source: "https://example.com/\(name)", variant: "64", format: "jpeg",
                          width: 64, height: 48, bytes: 0, checksum: "", created: FileSystem.now(), expires: nil)
    }

    private static func writeFile(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(fd) }
        guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }

    private static func footprint(_ cache: DiskCache) -> Int64 {
        cache.allEntries().reduce(0) { $0 + $1.bytes + 512 }
    }

    func testALimitFivePercentUnderAFullCacheKeepsAtLeastNinetyPercentOfIt() throws {
        let filler = makeCache(sizeLimit: nil)
        // Thumbnails of 100 to 400 bytes, last used within one minute an hour ago, oldest first.
        let base = FileSystem.now() - 3600
        var keys: [String] = []
        for i in 0..<Self.entries {
            var entry = Self.entry("e\(i).jpg")
            let bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 100 + i % 300)
            if i == 0 {
                try filler.store(bytes, entry: entry)   // the layout, as imgfetch makes it
            } else {
                // The rest written as a store leaves them, without its temporary files and renames.
                entry.bytes = Int64(bytes.count)
                entry.checksum = Checksum.string(bytes)
                mkdir(filler.shardDirectory(entry.key), 0o755)
                try Self.writeFile(bytes, to: filler.dataPath(entry))
                try Self.writeFile(entry.encoded(), to: filler.metaPath(entry.key))
            }
            FileSystem.touch(filler.dataPath(entry), at: base + Double(i * 60 / Self.entries))
            keys.append(entry.key)
        }
        let before = Self.footprint(filler)
        let limit = before * 95 / 100
        var evicted = CacheRemoval()
        for j in 0..<40 {
            let cache = DiskCache(directory: filler.directory, sizeLimit: limit, deferredScans: true)
            let stored = try cache.storeReporting([UInt8](repeating: 7, count: 300), entry: Self.entry("new\(j).jpg"))
            evicted.add(stored.evicted)
            evicted.add(cache.fitLimit())
            if cache.scanWanted.load(ordering: .relaxed), cache.claimCandidateScan() { cache.scanCandidates() }
            if j == 0 {
                let after = Self.footprint(filler)
                XCTAssertLessThanOrEqual(after, limit, "the hard limit holds after the first store")
                XCTAssertGreaterThanOrEqual(after, limit - limit * 3 / 100,
                                            "the first store deleted about the excess (\(stored.evicted.count) entries), not half the cache")
            }
        }
        let after = Self.footprint(filler)
        XCTAssertLessThanOrEqual(after, limit, "the hard limit holds")
        XCTAssertGreaterThanOrEqual(after, limit * 90 / 100, "at least 90% of the limit is kept after 40 stores (\(evicted.count) evicted)")
        // What went was the least recently used: the 85% most recently used are all there.
        let present = Set(filler.allEntries().map(\.key))
        let lost = keys.suffix(keys.count * 85 / 100).filter { !present.contains($0) }
        XCTAssertEqual(lost.count, 0, "recently used entries evicted while older ones stayed")
    }
}
