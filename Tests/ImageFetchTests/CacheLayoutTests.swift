import Foundation
import XCTest
@testable import ImageFetch

/// What the cache accepts from its own directory: names, keys, numbers, links.
final class CacheLayoutTests: XCTestCase {
    private var directories: [String] = []

    override func tearDown() {
        for dir in directories { try? FileManager.default.removeItem(atPath: dir) }
        directories = []
        super.tearDown()
    }

    private func temporaryDirectory() -> String {
        let dir = NSTemporaryDirectory() + "imgfetch-layout-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        directories.append(dir)
        return dir
    }

    private static let key = String(repeating: "0123456789abcdef", count: 4)

    private func meta(_ fields: [String: String]) -> [UInt8] {
        var values = ["key": Self.key, "identity": "i", "source": "s", "variant": "original", "format": "png",
                      "width": "10", "height": "20", "bytes": "30", "checksum": "xxh64:0", "created": "1000"]
        for (k, v) in fields { values[k] = v }
        let order = ["key", "identity", "source", "variant", "format", "width", "height", "bytes", "checksum", "created", "expires"]
        return Array(("imgfetch-meta 1\n" + order.compactMap { k in values[k].map { "\(k)\t\($0)\n" } }.joined() + "end\n").utf8)
    }

    // MARK: - names

    func testKeysAreExactly64LowercaseHexDigits() {
        XCTAssertTrue(CacheLayout.isKey(Self.key))
        for bad in ["../victim/x", Self.key.uppercased(), String(Self.key.dropLast()), Self.key + "0",
                    String(Self.key.dropLast()) + "g", String(Self.key.dropLast()) + "/", ""] {
            XCTAssertFalse(CacheLayout.isKey(bad), bad)
        }
    }

    func testEntryFileNamesMatchTheirShard() {
        XCTAssertNotNil(CacheLayout.entryFile(Self.key + ".meta", inShard: "01"))
        XCTAssertNotNil(CacheLayout.entryFile(Self.key + ".jpg", inShard: "01"))
        XCTAssertNotNil(CacheLayout.entryFile(Self.key + ".img", inShard: "01"))
        XCTAssertNil(CacheLayout.entryFile(Self.key + ".meta", inShard: "ab"), "another shard's key")
        XCTAssertNil(CacheLayout.entryFile(Self.key + ".txt", inShard: "01"))
        XCTAssertNil(CacheLayout.entryFile(Self.key + ".jpg.meta", inShard: "01"))
        XCTAssertNil(CacheLayout.entryFile("notes.meta", inShard: "01"))
        XCTAssertTrue(CacheLayout.isTemporary(FileSystem.temporaryName()))
        XCTAssertFalse(CacheLayout.isTemporary(".tmp-1-x"))
        XCTAssertFalse(CacheLayout.isTemporary("notes.txt"))
        XCTAssertTrue(CacheLayout.isShard("0f"))
        XCTAssertFalse(CacheLayout.isShard("zz"))
        XCTAssertFalse(CacheLayout.isShard(".."))
    }

    // MARK: - numbers

    func testMetadataOutOfBoundsIsTorn() {
        XCTAssertNotNil(CacheEntry.decode(meta([:])), "the baseline parses")
        for (field, value) in [("key", "../victim/x"), ("bytes", "9223372036854775807"), ("bytes", "-1"),
                               ("width", "9223372036854775807"), ("height", "-5"), ("created", "inf"),
                               ("created", "nan"), ("created", "1e300"), ("expires", "-inf"), ("expires", "1e20")] {
            XCTAssertNil(CacheEntry.decode(meta([field: value])), "\(field) \(value)")
        }
        XCTAssertNotNil(CacheEntry.decode(meta(["expires": "253402300799"])), "an Expires in the year 9999 is fine")
    }

    func testSaturatingAdd() {
        XCTAssertEqual(Int64.max.saturatingAdd(512), .max)
        XCTAssertEqual(Int64.min.saturatingAdd(-1), .min)
        XCTAssertEqual(Int64(40).saturatingAdd(2), 42)
    }

    func testUsageOutOfBoundsIsRecountedNotTrusted() throws {
        let cache = DiskCache(directory: temporaryDirectory() + "/cache", sizeLimit: 1 << 20)
        let key = CacheKey(source: .http("https://example.com/a"), processing: .original)
        let entry = CacheEntry(key: key.rawValue, identity: "a", source: "a", variant: "original", format: "png",
                               width: 1, height: 1, bytes: 0, checksum: "", created: FileSystem.now(), expires: nil)
        try cache.store([1, 2, 3], entry: entry)
        for planted in ["9223372036854775800", "-5", "x", String(repeating: "9", count: 100), "5 gx", "5 g-1", "5 g1 2", "5 7"] {
            FileSystem.overwrite(Array((planted + "\n").utf8), at: cache.usagePath)
            let version = try XCTUnwrap(try cache.openVersion())
            XCTAssertNil(cache.readUsage(version), planted)
            var other = entry
            other.key = CacheKey(source: .http("https://example.com/\(planted)"), processing: .original).rawValue
            try cache.store([4, 5], entry: other)  // no trap; the total is recounted
            XCTAssertEqual(cache.readTotal(version), 2 * 512 + 5, planted)
            cache.remove(other)
        }
    }

    /// `v1/usage` holds the total and its generation; a total alone (an older build's) is read.
    func testUsageRecordCarriesAGenerationEachWriteAdvances() throws {
        let cache = DiskCache(directory: temporaryDirectory() + "/cache", sizeLimit: 1 << 20)
        let key = CacheKey(source: .http("https://example.com/g"), processing: .original)
        let entry = CacheEntry(key: key.rawValue, identity: "g", source: "g", variant: "original", format: "png",
                               width: 1, height: 1, bytes: 0, checksum: "", created: FileSystem.now(), expires: nil)
        try cache.store([1, 2, 3], entry: entry)
        let version = try XCTUnwrap(try cache.openVersion())
        let first = try XCTUnwrap(cache.readUsage(version))
        XCTAssertEqual(first.total, 515)
        XCTAssertNotNil(first.generation)
        var other = entry
        other.key = CacheKey(source: .http("https://example.com/h"), processing: .original).rawValue
        try cache.store([4], entry: other)
        let second = try XCTUnwrap(cache.readUsage(version))
        XCTAssertEqual(second.total, 515 + 513)
        XCTAssertEqual(second.generation, first.generation.map { $0 + 1 })
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cache.usagePath)).count, 43, "one fixed width")
        FileSystem.overwrite(Array("1028                \n".utf8), at: cache.usagePath)
        XCTAssertEqual(cache.readUsage(version), DiskCache.Usage(total: 1028, generation: nil), "an older build's total")
    }

    // MARK: - links

    func testDirectoryHandleNeverFollowsALink() throws {
        let dir = temporaryDirectory()
        let outside = temporaryDirectory()
        FileSystem.overwrite(Array("precious".utf8), at: outside + "/file")
        symlink(outside, dir + "/sub")
        symlink(outside + "/file", dir + "/link")
        let handle = try DirectoryHandle.open(dir, followingLink: false)
        XCTAssertThrowsError(try handle.subdirectory("sub")) { error in
            XCTAssertEqual((error as? FileSystem.Failure)?.errno, ELOOP)
            XCTAssertTrue((error as? FileSystem.Failure)?.message.contains("symbolic link") == true)
        }
        XCTAssertThrowsError(try handle.read("link"))
        XCTAssertFalse(handle.overwrite([1], at: "link"))
        XCTAssertEqual(try FileSystem.read(outside + "/file"), Array("precious".utf8))
        XCTAssertEqual(handle.status("link")?.isSymbolicLink, true)
        XCTAssertThrowsError(try DirectoryHandle.open(dir + "/sub", followingLink: false))
        XCTAssertNoThrow(try DirectoryHandle.open(dir + "/sub", followingLink: true), "the user's own path may be a link")
        XCTAssertTrue(handle.remove("link"))
        XCTAssertEqual(try FileSystem.read(outside + "/file"), Array("precious".utf8), "removes the link, not its target")
    }

    func testAFIFOIsNotReadAsAnEntry() throws {
        let dir = temporaryDirectory()
        XCTAssertEqual(mkfifo(dir + "/fifo", 0o644), 0)
        let handle = try DirectoryHandle.open(dir, followingLink: false)
        XCTAssertThrowsError(try handle.read("fifo"), "refused at once, never blocking on a reader")
    }
}
