import Foundation
import XCTest
@testable import ImageFetch

final class DiskCacheTests: XCTestCase {
    private var directories: [String] = []

    override func tearDown() {
        for dir in directories { try? FileManager.default.removeItem(atPath: dir) }
        directories = []
        super.tearDown()
    }

    private func temporaryDirectory() -> String {
        let dir = NSTemporaryDirectory() + "imgfetch-disk-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        directories.append(dir)
        return dir
    }

    private func makeCache(sizeLimit: Int64? = nil, synchronous: Bool = false) -> DiskCache {
        DiskCache(directory: temporaryDirectory() + "/cache", sizeLimit: sizeLimit, synchronous: synchronous)
    }

    private static func key(_ name: String, _ p: Processing = .original) -> CacheKey {
        CacheKey(source: .http("https://example.com/\(name)"), processing: p)
    }

    private static func entry(_ key: CacheKey, identity: String = "https://example.com/x", width: Int = 10,
                              expires: Double? = nil, etag: String? = nil, mustRevalidate: Bool = false) -> CacheEntry {
        CacheEntry(key: key.rawValue, identity: identity, source: identity, variant: "original", format: "png",
                   width: width, height: 20, bytes: 0, checksum: "", created: FileSystem.now(), expires: expires,
                   etag: etag, lastModified: etag == nil ? nil : "Sun, 06 Nov 1994 08:49:37 GMT", mustRevalidate: mustRevalidate)
    }

    private static func payload(_ seed: Int, count: Int = 1000) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed &* 13) }
    }

    private func write(_ bytes: [UInt8], to path: String) {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    }

    // MARK: - store and lookup

    func testStoreThenLookupReturnsSameBytesAndMetadata() throws {
        let cache = makeCache()
        let key = Self.key("a.png")
        let bytes = Self.payload(1)
        var stored = Self.entry(key, identity: "https://example.com/a\tb\nc\\d", expires: 2_000_000_000, etag: "\"v1\"")
        let path = try XCTUnwrap(cache.store(bytes, entry: stored))
        XCTAssertEqual(path, cache.dataPath(key.rawValue, format: "png"))
        XCTAssertTrue(path.hasSuffix(".png"))
        XCTAssertEqual(try FileSystem.read(path), bytes)

        let hit = try XCTUnwrap(cache.lookup(key))
        XCTAssertEqual(hit.bytes, bytes)
        XCTAssertEqual(hit.path, path)
        stored.bytes = Int64(bytes.count)
        XCTAssertFalse(hit.entry.checksum.isEmpty, "store fills in the checksum")
        stored.checksum = hit.entry.checksum
        stored.lastAccess = hit.entry.lastAccess
        XCTAssertEqual(hit.entry, stored)
        XCTAssertEqual(cache.entry(forKey: key.rawValue)?.identity, "https://example.com/a\tb\nc\\d")
        XCTAssertNil(cache.lookup(Self.key("other.png")))
    }

    func testStoreReplacesAnEntry() throws {
        let cache = makeCache()
        let key = Self.key("a.png")
        try cache.store(Self.payload(1), entry: Self.entry(key, width: 1))
        try cache.store(Self.payload(2, count: 10), entry: Self.entry(key, width: 2))
        let hit = try XCTUnwrap(cache.lookup(key))
        XCTAssertEqual(hit.bytes, Self.payload(2, count: 10))
        XCTAssertEqual(hit.entry.width, 2)
        XCTAssertEqual(cache.allEntries().count, 1)
    }

    func testCorruptedImageIsAMissAndRemoved() throws {
        let cache = makeCache()
        let key = Self.key("a.png")
        let path = try XCTUnwrap(cache.store(Self.payload(1), entry: Self.entry(key)))
        var bytes = try FileSystem.read(path)
        bytes[500] ^= 0xFF
        write(bytes, to: path)
        XCTAssertNil(cache.lookup(key))
        XCTAssertFalse(FileManager.default.fileExists(atPath: cache.metaPath(key.rawValue)), "metadata removed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "image removed")
        XCTAssertTrue(cache.allEntries().isEmpty)
    }

    func testTruncatedMetadataIsAMiss() throws {
        let cache = makeCache()
        let key = Self.key("a.png")
        try cache.store(Self.payload(1), entry: Self.entry(key, expires: 2_000_000_000))
        let meta = try FileSystem.read(cache.metaPath(key.rawValue))
        for cut in [0, 5, 20, meta.count / 2] {
            write(Array(meta.prefix(cut)), to: cache.metaPath(key.rawValue))
            XCTAssertNil(cache.lookup(key), "metadata cut to \(cut) of \(meta.count) bytes")
        }
    }

    /// A `.meta` cut inside its last line still parses: here the `no-cache` flag is lost and the entry is served fresh.
    func testMetadataTruncatedInsideItsLastLineIsAMiss() throws {
        let cache = makeCache()
        let key = Self.key("a.png")
        try cache.store(Self.payload(1), entry: Self.entry(key, expires: 2_000_000_000, etag: "\"abcdef\"", mustRevalidate: true))
        let meta = try FileSystem.read(cache.metaPath(key.rawValue))
        XCTAssertTrue(String(decoding: meta, as: UTF8.self).contains("must_revalidate\t1\n"))
        // Cut anywhere in the tail (inside "must_revalidate\t1", or inside the end marker): never served.
        for cut in [1, 2, 4, 6, 8] {
            write(Array(meta.dropLast(cut)), to: cache.metaPath(key.rawValue))
            let hit = cache.lookup(key)
            XCTAssertNil(hit, "a .meta missing its last \(cut) bytes must not be served (must_revalidate: \(hit?.entry.mustRevalidate as Any))")
        }
    }

    func testStoreIntoUnusableDirectoryThrowsCacheUnavailable() {
        let file = temporaryDirectory() + "/regular-file"
        write([1, 2, 3], to: file)
        let cache = DiskCache(directory: file + "/cache")
        XCTAssertThrowsError(try cache.store([1, 2, 3], entry: Self.entry(Self.key("a")))) { error in
            guard case .cacheUnavailable(let message) = error as? FetchError else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains(file), message)
        }
        XCTAssertNil(cache.lookup(Self.key("a")))
    }

    // MARK: - listing and removal

    func testAllEntriesEntriesForIdentityRemoveAndClear() throws {
        let cache = makeCache()
        let small = Processing(width: 10)
        try cache.store(Self.payload(1), entry: Self.entry(Self.key("a"), identity: "A"))
        var variant = Self.entry(Self.key("a", small), identity: "A")
        variant.variant = small.identifier
        try cache.store(Self.payload(2), entry: variant)
        try cache.store(Self.payload(3), entry: Self.entry(Self.key("b"), identity: "B"))

        XCTAssertEqual(Set(cache.allEntries().map(\.key)), Set([Self.key("a"), Self.key("a", small), Self.key("b")].map(\.rawValue)))
        XCTAssertEqual(Set(cache.entries(forIdentity: "A").map(\.variant)), ["original", "w10-inside-original"])
        XCTAssertEqual(cache.entries(forIdentity: "B").count, 1)
        XCTAssertTrue(cache.entries(forIdentity: "C").isEmpty)

        let b = try XCTUnwrap(cache.entry(forKey: Self.key("b").rawValue))
        XCTAssertTrue(cache.remove(b))
        XCTAssertFalse(cache.remove(b), "already gone")
        XCTAssertNil(cache.lookup(Self.key("b")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: cache.dataPath(b.key, format: b.format)))
        XCTAssertEqual(cache.allEntries().count, 2)

        XCTAssertEqual(cache.clear(), 2)
        XCTAssertTrue(cache.allEntries().isEmpty)
        XCTAssertNil(cache.lookup(Self.key("a")))
        let leftovers = FileSystem.list(cache.root).filter { $0.utf8.count == 2 }
        XCTAssertEqual(leftovers, [], "shard directories removed")
    }

    // MARK: - size limit

    private func diskBytes(_ cache: DiskCache) -> Int64 {
        cache.allEntries().reduce(0) { total, e in
            total + (FileSystem.status(cache.metaPath(e.key))?.size ?? 0) + (FileSystem.status(cache.dataPath(e.key, format: e.format))?.size ?? 0)
        }
    }

    func testSizeLimitEvictsLeastRecentlyUsed() throws {
        let limit: Int64 = 3 * (1000 + 512)
        let cache = makeCache(sizeLimit: limit)
        let keys = (0..<5).map { Self.key("img\($0)") }
        for i in 0..<3 { try cache.store(Self.payload(i), entry: Self.entry(keys[i], width: i)) }
        XCTAssertEqual(cache.allEntries().count, 3, "three entries fit")
        let now = FileSystem.now()
        FileSystem.touch(cache.dataPath(keys[0].rawValue, format: "png"), at: now - 3000)
        FileSystem.touch(cache.dataPath(keys[1].rawValue, format: "png"), at: now - 1000)
        FileSystem.touch(cache.dataPath(keys[2].rawValue, format: "png"), at: now - 2000)
        XCTAssertNotNil(cache.lookup(keys[0]), "a read makes entry 0 the most recently used")

        try cache.store(Self.payload(3), entry: Self.entry(keys[3], width: 3))
        XCTAssertNil(cache.lookup(keys[2]), "entry 2 is now the least recently used")
        try cache.store(Self.payload(4), entry: Self.entry(keys[4], width: 4))
        XCTAssertNil(cache.lookup(keys[1]))

        XCTAssertEqual(Set(cache.allEntries().map(\.width)), [0, 3, 4])
        XCTAssertLessThanOrEqual(cache.allEntries().reduce(0) { $0 + $1.bytes + 512 }, limit)
        XCTAssertLessThanOrEqual(diskBytes(cache), limit)
        for i in [0, 3, 4] { XCTAssertEqual(cache.lookup(keys[i])?.bytes, Self.payload(i)) }
    }

    func testEvictionNeverRemovesTheEntryJustWritten() throws {
        let limit: Int64 = 3 * (1000 + 512)
        let cache = makeCache(sizeLimit: limit)
        let keys = (0..<4).map { Self.key("img\($0)") }
        let now = FileSystem.now()
        for i in 0..<3 {
            try cache.store(Self.payload(i), entry: Self.entry(keys[i], width: i))
            // Accessed "later" than anything written now (e.g. by a process with a clock ahead).
            FileSystem.touch(cache.dataPath(keys[i].rawValue, format: "png"), at: now + 1000 * Double(i + 1))
        }
        try cache.store(Self.payload(3), entry: Self.entry(keys[3], width: 3))
        XCTAssertEqual(cache.lookup(keys[3])?.bytes, Self.payload(3), "the entry just written survives")
        XCTAssertNil(cache.lookup(keys[0]))
        // Just enough goes to fit (the list holds more, for the next stores): the oldest other one.
        XCTAssertEqual(Set(cache.allEntries().map(\.width)), [1, 2, 3])
    }

    /// Two processes share one directory (modelled by two instances): the hard limit holds for their sum.
    func testSizeLimitHoldsWhenTwoProcessesShareTheDirectory() throws {
        let limit: Int64 = 10 * (1000 + 512)
        let first = makeCache(sizeLimit: limit)
        let second = DiskCache(directory: first.directory, sizeLimit: limit, synchronous: false)
        for i in 0..<5 { try first.store(Self.payload(i), entry: Self.entry(Self.key("p1-\(i)"), width: i)) }
        for i in 5..<10 { try second.store(Self.payload(i), entry: Self.entry(Self.key("p2-\(i)"), width: i)) }
        for i in 10..<15 { try first.store(Self.payload(i), entry: Self.entry(Self.key("p1-\(i)"), width: i)) }
        XCTAssertLessThanOrEqual(diskBytes(first), limit, "\(first.allEntries().count) entries on disk")
        XCTAssertLessThanOrEqual(first.allEntries().count, 10)
    }

    // MARK: - maintenance

    func testPruneExpiredRemovesExpiredOnly() throws {
        let cache = makeCache()
        let now = FileSystem.now()
        try cache.store(Self.payload(1), entry: Self.entry(Self.key("expired"), expires: now - 10))
        try cache.store(Self.payload(2), entry: Self.entry(Self.key("expired-etag"), expires: now - 10, etag: "\"e\""))
        try cache.store(Self.payload(3), entry: Self.entry(Self.key("fresh"), expires: now + 3600))
        try cache.store(Self.payload(4), entry: Self.entry(Self.key("forever"), expires: nil))
        let expired: (CacheEntry) -> Bool = { $0.isExpired(at: FileSystem.now()) }
        let planned = cache.prune(selecting: expired, maxSize: nil, dryRun: true)
        XCTAssertEqual(planned.removed, CacheRemoval(count: 2, bytes: Int64(Self.payload(1).count + Self.payload(2).count)))
        XCTAssertEqual(cache.allEntries().count, 4, "a dry run removes nothing")
        let removed = cache.prune(selecting: expired, maxSize: nil, dryRun: false)
        XCTAssertEqual(removed.removed, CacheRemoval(count: 2, bytes: Int64(Self.payload(1).count + Self.payload(2).count)))
        XCTAssertEqual(removed.checked, 4)
        XCTAssertEqual(Set(cache.allEntries().map(\.key)), Set([Self.key("fresh"), Self.key("forever")].map(\.rawValue)))
        XCTAssertEqual(cache.prune(selecting: nil, maxSize: nil, dryRun: false).removed.count, 0)
        XCTAssertEqual(cache.allEntries().count, 2)
    }

    func testVerifyFindsChecksumMismatchAndOrphanAndRepairRemovesThem() throws {
        let cache = makeCache()
        try cache.store(Self.payload(1), entry: Self.entry(Self.key("good")))
        let badPath = try XCTUnwrap(cache.store(Self.payload(2), entry: Self.entry(Self.key("bad"))))
        var bytes = try FileSystem.read(badPath)
        bytes[10] ^= 0x01
        write(bytes, to: badPath)
        let now = FileSystem.now()
        let orphanKey = Self.key("orphan").rawValue
        try FileSystem.makeDirectories(cache.root + "/" + orphanKey.prefix(2))
        let orphan = cache.dataPath(orphanKey, format: "png")
        write([1, 2, 3], to: orphan)
        FileSystem.touch(orphan, at: now - 120)
        let youngKey = Self.key("young").rawValue
        try FileSystem.makeDirectories(cache.root + "/" + youngKey.prefix(2))
        let young = cache.dataPath(youngKey, format: "png")
        write([4, 5, 6], to: young) // maybe being written right now: not reported

        let report = cache.verify(repair: false)
        XCTAssertEqual(report.checked, 2)
        XCTAssertEqual(report.problems.count, 2, "\(report.problems)")
        XCTAssertEqual(report.problems.first { $0.key == Self.key("bad").rawValue }?.reason, "checksum mismatch")
        XCTAssertTrue(report.problems.contains { $0.key == orphanKey && $0.reason.contains("orphan") })
        XCTAssertTrue(FileManager.default.fileExists(atPath: orphan), "no repair: nothing removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: badPath))

        XCTAssertEqual(cache.verify(repair: true).problems.count, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: orphan))
        XCTAssertFalse(FileManager.default.fileExists(atPath: badPath))
        XCTAssertTrue(FileManager.default.fileExists(atPath: young))
        let after = cache.verify(repair: false)
        XCTAssertEqual(after.checked, 1)
        XCTAssertTrue(after.problems.isEmpty, "\(after.problems)")
        XCTAssertEqual(cache.lookup(Self.key("good"))?.bytes, Self.payload(1))
    }

    func testAnEntryLargerThanTheWholeLimitIsNotStored() throws {
        let cache = DiskCache(directory: makeCache().directory, sizeLimit: 4096)
        let small = try XCTUnwrap(cache.store(Self.payload(1), entry: Self.entry(Self.key("small"))))
        XCTAssertNil(try cache.store(Self.payload(2, count: 8000), entry: Self.entry(Self.key("huge"))), "never stored")
        XCTAssertNil(cache.lookup(Self.key("huge")))
        XCTAssertTrue(FileManager.default.fileExists(atPath: small), "and it evicted nothing")
    }

    func testVerifyReportsMissingImageAndUndecodableBytes() throws {
        let cache = makeCache()
        let path = try XCTUnwrap(cache.store(Self.payload(1), entry: Self.entry(Self.key("gone"))))
        try cache.store(Self.payload(2), entry: Self.entry(Self.key("junk")))
        FileSystem.remove(path)
        let report = cache.verify(repair: false, decodes: { $0 == Self.payload(2) ? "bad header" : nil })
        XCTAssertEqual(report.problems.first { $0.key == Self.key("gone").rawValue }?.reason, "image file missing")
        XCTAssertEqual(report.problems.first { $0.key == Self.key("junk").rawValue }?.reason, "does not decode: bad header")
    }

    func testCleanTemporaryFilesRemovesOldLeftoversOnly() throws {
        let cache = makeCache()
        try cache.store(Self.payload(1), entry: Self.entry(Self.key("a")))
        let tmp = cache.root + "/tmp"
        let old = tmp + "/.tmp-1-111", recent = tmp + "/.tmp-1-222"
        write([1], to: old)
        write([2], to: recent)
        FileSystem.touch(old, at: FileSystem.now() - 7200)
        XCTAssertEqual(cache.cleanTemporaryFiles(), 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: old))
        XCTAssertTrue(FileManager.default.fileExists(atPath: recent))
        XCTAssertEqual(cache.lookup(Self.key("a"))?.bytes, Self.payload(1))
    }

    // MARK: - concurrency

    func testConcurrentStoresAndLookupsNeverSeeATornEntry() async throws {
        let cache = makeCache(sizeLimit: 1 << 30)
        let shared = Self.key("shared")
        await withTaskGroup(of: [String].self) { group in
            for writer in 0..<8 {
                group.addTask {
                    var problems: [String] = []
                    let own = Self.key("own-\(writer)")
                    for i in 0..<40 {
                        let seed = writer * 1000 + i
                        let bytes = Self.payload(seed, count: 500 + seed % 700)
                        do {
                            try cache.store(bytes, entry: Self.entry(shared, width: seed))
                            try cache.store(bytes, entry: Self.entry(own, width: seed))
                        } catch { problems.append("store: \(error)") }
                        if let hit = cache.lookup(shared), hit.bytes != Self.payload(hit.entry.width, count: 500 + hit.entry.width % 700) {
                            problems.append("torn shared entry (width \(hit.entry.width), \(hit.bytes.count) bytes)")
                        }
                        if let hit = cache.lookup(own) {
                            if hit.bytes != bytes || hit.entry.width != seed { problems.append("own entry \(writer) differs") }
                        } else {
                            problems.append("own entry \(writer) missing after its store")
                        }
                    }
                    return problems
                }
            }
            for await problems in group { XCTAssertEqual(problems, []) }
        }
        XCTAssertEqual(cache.allEntries().filter { $0.key != shared.rawValue }.count, 8)
    }
}
