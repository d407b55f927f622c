import Foundation
import XCTest

/// `imgfetch cache ls|info|rm|clear|prune|stats|path` as a user sees them, on a cache filled by `get`.
final class CacheCommandTests: E2ETestCase {
    // MARK: - helpers

    /// `imgfetch cache ARGS --cache-dir CACHE`.
    private func cache(_ args: [String]) throws -> RunResult {
        try imgfetch(["cache"] + args + ["--cache-dir", cacheDir.path])
    }

    /// `cache ls --json [extra]`: one object per entry (exit 0 asserted).
    private func listed(_ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let r = try cache(["ls", "--json"] + extra)
        assertExit(r, 0, file: file, line: line)
        return r.json
    }

    /// `cache stats --json` (exit 0 asserted).
    private func stats(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let r = try cache(["stats", "--json"])
        assertExit(r, 0, file: file, line: line)
        return singleRecord(r, file: file, line: line)
    }

    /// Fetches photo.jpg at 300 then 150 pixels (the second is derived from the kept original):
    /// three entries, the original and two variants. Returns the URL.
    @discardableResult
    private func fetchPhotoAtTwoSizes(_ query: String? = nil) throws -> String {
        let url = imageURL("photo.jpg", query)
        assertExit(try get([url, "-s", "300", "-o", file("a300.jpg").path]), 0)
        assertExit(try get([url, "-s", "150", "-o", file("a150.jpg").path]), 0)
        return url
    }

    private func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
    }

    // MARK: - path

    func testPathPrintsTheCacheDirectory() throws {
        let r = try cache(["path"])
        assertExit(r, 0)
        XCTAssertEqual(r.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), cacheDir.path, "\(r)")
        let viaEnv = try imgfetch(["cache", "path"], env: ["IMGFETCH_CACHE_DIR": root.appendingPathComponent("env-cache").path])
        assertExit(viaEnv, 0)
        XCTAssertEqual(viaEnv.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines),
                       root.appendingPathComponent("env-cache").path, "$IMGFETCH_CACHE_DIR: \(viaEnv)")
    }

    // MARK: - ls

    func testLsJSONHasOneObjectPerEntryWithTheContractFields() throws {
        let url = imageURL("photo.jpg")
        let first = try get([url, "-s", "300", "--json", "-o", file("a.jpg").path])
        assertExit(first, 0)
        let second = try get([url, "-s", "150", "--json", "-o", file("b.jpg").path])
        assertExit(second, 0)
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 1)

        let entries = try listed()
        XCTAssertEqual(entries.count, 3, "the original and two variants:\n\(entries)")
        var dims = Set<String>()
        for e in entries {
            let key = e.string("key") ?? ""
            XCTAssertEqual(key.count, 64, "key: \(e)")
            XCTAssertTrue(key.allSatisfy { $0.isHexDigit }, "key: \(e)")
            XCTAssertEqual(e.string("source"), url, "\(e)")
            XCTAssertEqual(e.string("format"), "jpeg", "\(e)")
            XCTAssertNotNil(e.string("created"), "created: \(e)")
            XCTAssertNotNil(e.string("expires"), "expires (the server sent validators; default TTL): \(e)")
            guard let path = e.string("path"), let bytes = e.int("bytes"),
                  let width = e.int("width"), let height = e.int("height") else {
                XCTFail("missing path/bytes/width/height: \(e)")
                continue
            }
            dims.insert("\(width)x\(height)")
            // Layout: v1/<2 hex>/<key>.<ext>
            XCTAssertEqual(path, cacheDir.path + "/v1/" + key.prefix(2) + "/" + key + ".jpg", "\(e)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "path exists: \(e)")
            XCTAssertEqual(fileSize(path), bytes, "bytes is the file's size: \(e)")
            assertImageFile(URL(fileURLWithPath: path), .jpeg, width: width, height: height, "\(e)")
        }
        XCTAssertEqual(dims, ["1200x800", "300x200", "150x100"])
        let keys = Set(entries.compactMap { $0.string("key") })
        for r in [first, second] {
            let record = singleRecord(r)
            XCTAssertTrue(keys.contains(record.string("key") ?? "-"), "get's key is listed: \(record)")
        }
        let original = entries.first { $0.int("width") == 1200 }
        XCTAssertEqual(original?.int("bytes"), try E2EPaths.fixtureData("photo.jpg").count, "the original's bytes are kept as downloaded")
    }

    func testLsSortBySizeIsDescending() throws {
        try fetchPhotoAtTwoSizes()
        let sizes = try listed(["--sort", "size"]).compactMap { $0.int("bytes") }
        XCTAssertEqual(sizes.count, 3)
        XCTAssertEqual(sizes, sizes.sorted(by: >), "--sort size")
    }

    func testLsTableListsTheSource() throws {
        let url = try fetchPhotoAtTwoSizes()
        let r = try cache(["ls"])
        assertExit(r, 0)
        let lines = r.stdoutText.split(whereSeparator: \.isNewline).map(String.init)
        XCTAssertEqual(lines.count, 4, "a header and three rows:\n\(r)")
        XCTAssertTrue(lines.first?.contains("SOURCE") == true, "header:\n\(r)")
        XCTAssertEqual(lines.dropFirst().filter { $0.contains(url) }.count, 3, "every row names the source:\n\(r)")
        XCTAssertTrue(r.stdoutText.contains("1200x800") && r.stdoutText.contains("150x100"), "dimensions:\n\(r)")
    }

    func testLsOnAnEmptyCacheIsEmpty() throws {
        let r = try cache(["ls", "--json"])
        assertExit(r, 0)
        XCTAssertTrue(r.json.isEmpty, "\(r)")
    }

    func testLsSourceFilter() throws {
        let photo = try fetchPhotoAtTwoSizes()
        let tiny = imageURL("tiny.jpg")
        let out = try get([tiny])  // to stdout: the original only, one entry
        assertExit(out, 0)
        XCTAssertEqual(try listed().count, 4)

        let onlyTiny = try listed(["--source", "tiny.jpg"])
        XCTAssertEqual(onlyTiny.count, 1, "\(onlyTiny)")
        XCTAssertEqual(onlyTiny.first?.string("source"), tiny)
        let onlyPhoto = try listed(["--source", "photo.jpg"])
        XCTAssertEqual(onlyPhoto.count, 3, "\(onlyPhoto)")
        XCTAssertTrue(onlyPhoto.allSatisfy { $0.string("source") == photo }, "\(onlyPhoto)")
        XCTAssertTrue(try listed(["--source", "nothing-like-this"]).isEmpty)

        let table = try cache(["ls", "--source", "tiny.jpg"])
        assertExit(table, 0)
        XCTAssertTrue(table.stdoutText.contains(tiny), "\(table)")
        XCTAssertFalse(table.stdoutText.contains(photo), "\(table)")
    }

    // MARK: - info

    func testInfoOfASourceListsAllItsVariants() throws {
        let url = try fetchPhotoAtTwoSizes()
        assertExit(try get([imageURL("tiny.jpg")]), 0)
        let r = try cache(["info", url, "--json"])
        assertExit(r, 0)
        let records = r.json
        XCTAssertEqual(records.count, 3, "\(r)")
        XCTAssertTrue(records.allSatisfy { $0.string("source") == url }, "\(r)")
        let expected = Set(try listed(["--source", "photo.jpg"]).compactMap { $0.string("key") })
        XCTAssertEqual(Set(records.compactMap { $0.string("key") }), expected)

        let text = try cache(["info", url])
        assertExit(text, 0)
        XCTAssertTrue(text.stdoutText.contains(url), "\(text)")
    }

    func testInfoOfAKeyShowsExactlyThatEntry() throws {
        try fetchPhotoAtTwoSizes()
        let entries = try listed()
        guard let variant = entries.first(where: { $0.int("width") == 150 }), let key = variant.string("key") else {
            return XCTFail("no 150-pixel variant listed: \(entries)")
        }
        let r = try cache(["info", key, "--json"])
        assertExit(r, 0)
        let record = singleRecord(r)
        XCTAssertEqual(record.string("key"), key)
        XCTAssertEqual(record.int("width"), 150)
        XCTAssertEqual(record.string("path"), variant.string("path"))

        let text = try cache(["info", key])
        assertExit(text, 0)
        XCTAssertTrue(text.stdoutText.contains(key), "\(text)")
    }

    func testInfoOfAnUncachedSourceExits1() throws {
        let url = imageURL("tiny.jpg")
        let r = try cache(["info", url])
        assertExit(r, 1)
        XCTAssertTrue(r.stderr.contains(url), "names the source:\n\(r)")
        XCTAssertEqual(try server.totalRequests(), 0, "cache commands never use the network")
    }

    // MARK: - rm

    func testRmOfASourceRemovesAllItsVariantsAndTheNextGetDownloads() throws {
        let url = try fetchPhotoAtTwoSizes()
        let tiny = imageURL("tiny.jpg")
        assertExit(try get([tiny]), 0)
        let paths = try listed(["--source", "photo.jpg"]).compactMap { $0.string("path") }
        XCTAssertEqual(paths.count, 3)

        let r = try cache(["rm", url])
        assertExit(r, 0)
        XCTAssertTrue(try listed(["--source", "photo.jpg"]).isEmpty, "no variant of the source is left")
        for path in paths {
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "\(path) is removed")
        }
        XCTAssertEqual(try listed().count, 1, "other sources stay")
        let info = try cache(["info", url])
        assertExit(info, 1)

        let before = try server.requestCount(imagePath("photo.jpg"))
        let again = try get([url, "-s", "150", "--json", "-o", file("c.jpg").path])
        assertExit(again, 0)
        XCTAssertEqual(singleRecord(again).string("cache"), "miss")
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), before + 1, "a removed entry is downloaded again")
        assertImageFile(file("c.jpg"), .jpeg, width: 150, height: 100)
    }

    func testRmOfAKeyRemovesOnlyThatEntry() throws {
        try fetchPhotoAtTwoSizes()
        guard let key = try listed().first(where: { $0.int("width") == 300 })?.string("key") else {
            return XCTFail("no 300-pixel variant")
        }
        let r = try cache(["rm", key])
        assertExit(r, 0)
        let left = try listed()
        XCTAssertEqual(left.count, 2, "\(left)")
        XCTAssertFalse(left.contains { $0.string("key") == key })
    }

    func testRmOfAnUnknownSourceExits1() throws {
        try fetchPhotoAtTwoSizes()
        let unknown = imageURL("not-cached.jpg")
        let r = try cache(["rm", unknown])
        assertExit(r, 1)
        XCTAssertTrue(r.stderr.contains(unknown), "names the source:\n\(r)")
        XCTAssertEqual(try listed().count, 3, "nothing else is removed")
    }

    // MARK: - clear

    func testClearEmptiesTheCache() throws {
        let url = try fetchPhotoAtTwoSizes()
        assertExit(try get([imageURL("tiny.jpg")]), 0)
        let r = try cache(["clear"])
        assertExit(r, 0)
        XCTAssertTrue(try listed().isEmpty)
        let s = try stats()
        XCTAssertEqual(s.int("entries"), 0, "\(s)")
        XCTAssertEqual(s.int("bytes"), 0, "\(s)")
        let leftovers = regularFiles(under: cacheDir).filter {
            ["jpg", "jpeg", "png", "webp", "gif", "avif", "meta", "img"].contains($0.pathExtension)
        }
        XCTAssertEqual(leftovers, [], "no image or metadata file is left")

        let before = try server.requestCount(imagePath("photo.jpg"))
        assertExit(try get([url, "-s", "300", "-o", file("again.jpg").path]), 0)
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), before + 1)
    }

    // MARK: - stats

    func testStatsJSONCountsEntriesOriginalsVariantsAndBytes() throws {
        try fetchPhotoAtTwoSizes()
        assertExit(try get([imageURL("tiny.jpg")]), 0)  // an original only
        let entries = try listed()
        XCTAssertEqual(entries.count, 4)
        let s = try stats()
        XCTAssertEqual(s.int("entries"), 4, "\(s)")
        XCTAssertEqual(s.int("originals"), 2, "\(s)")
        XCTAssertEqual(s.int("variants"), 2, "\(s)")
        let total = entries.compactMap { $0.int("bytes") }.reduce(0, +)
        XCTAssertEqual(s.int("bytes"), total, "bytes is the sum of the entries' bytes: \(s)")
        let photo = try E2EPaths.fixtureData("photo.jpg").count, tiny = try E2EPaths.fixtureData("tiny.jpg").count
        XCTAssertEqual(s.int("original_bytes"), photo + tiny, "\(s)")
        XCTAssertEqual((s.int("original_bytes") ?? 0) + (s.int("variant_bytes") ?? 0), total, "\(s)")
        XCTAssertEqual(s.int("expired"), 0, "\(s)")
        XCTAssertEqual(s.string("directory"), cacheDir.path, "\(s)")
        XCTAssertNotNil(s.string("oldest"), "\(s)")
        XCTAssertNotNil(s.string("newest"), "\(s)")

        let text = try cache(["stats"])
        assertExit(text, 0)
        XCTAssertTrue(text.stdoutText.contains("\(total)"), "the text form shows the bytes:\n\(text)")
    }

    func testStatsOfAnEmptyCache() throws {
        let s = try stats()
        XCTAssertEqual(s.int("entries"), 0, "\(s)")
        XCTAssertEqual(s.int("bytes"), 0, "\(s)")
    }

    // MARK: - prune

    func testPruneExpiredRemovesOnlyExpiredEntries() throws {
        let shortLived = imageURL("tiny.jpg", "cc=max-age=1")
        assertExit(try get([shortLived]), 0)
        let longLived = try fetchPhotoAtTwoSizes("cc=max-age=3600")
        XCTAssertEqual(try listed().count, 4)
        Thread.sleep(forTimeInterval: 1.2)
        XCTAssertEqual(try stats().int("expired"), 1)

        let r = try cache(["prune", "--expired"])
        assertExit(r, 0)
        XCTAssertTrue(r.stderr.contains("imgfetch: removed 1 entry"), "the report on stderr: \(r)")
        let left = try listed()
        XCTAssertEqual(left.count, 3, "\(left)")
        XCTAssertTrue(left.allSatisfy { $0.string("source") == longLived }, "the long-lived entries stay: \(left)")
        XCTAssertEqual(try server.totalRequests(), 2, "prune uses no network")
    }

    func testPruneMaxSizeLeavesAtMostThatMuch() throws {
        try fetchPhotoAtTwoSizes()
        assertExit(try get([imageURL("tiny.jpg")]), 0)
        assertExit(try get([imageURL("small.webp")]), 0)
        XCTAssertEqual(try listed().count, 5)

        let keepAll = try cache(["prune", "--max-size", "100M"])
        assertExit(keepAll, 0)
        XCTAssertEqual(try listed().count, 5, "everything fits in 100M: \(keepAll)")

        let r = try cache(["prune", "--max-size", "1K"])
        assertExit(r, 0)
        let left = try listed()
        // Each entry counts its bytes plus 512 for its metadata.
        let footprint = left.compactMap { $0.int("bytes") }.reduce(0) { $0 + $1 + 512 }
        XCTAssertLessThanOrEqual(footprint, 1024, "at most 1K is left: \(left)")
        XCTAssertLessThanOrEqual(try stats().int("bytes") ?? .max, 1024)
        XCTAssertTrue(r.stderr.contains("imgfetch: removed"), "\(r)")
        XCTAssertTrue(r.stdout.isEmpty, "standard output carries data only: \(r)")
    }

    func testPruneWithABadSizeIsAUsageError() throws {
        let r = try cache(["prune", "--max-size", "lots"])
        assertExit(r, 2)
    }

    // MARK: - usage

    func testUnknownCacheSubcommandIsAUsageError() throws {
        let r = try cache(["bogus"])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("bogus"), "names the unknown command:\n\(r)")
        XCTAssertTrue(r.stdout.isEmpty, "\(r)")
        let missing = try cache([])
        assertExit(missing, 2)
    }
}
