import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The cache never serves bad bytes and stays consistent: corruption, `cache verify`, the HTTP
/// caching headers, the hard size limit, concurrent writers and a writer killed with SIGKILL.
final class CacheSafetyTests: E2ETestCase {
    // MARK: - helpers

    private func cache(_ args: [String]) throws -> RunResult {
        try imgfetch(["cache"] + args + ["--cache-dir", cacheDir.path])
    }

    private func listed(file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let r = try cache(["ls", "--json"])
        assertExit(r, 0, file: file, line: line)
        return r.json
    }

    /// Flips every bit of the byte in the middle of the file at `path`.
    private func corrupt(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertGreaterThan(data.count, 10, "\(path)", file: file, line: line)
        let i = data.count / 2
        data[i] ^= 0xFF
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The cache's total footprint as the size limit counts it: bytes + 512 per entry.
    private func footprint(_ entries: [[String: Any]]) -> Int {
        entries.compactMap { $0.int("bytes") }.reduce(0) { $0 + $1 + 512 }
    }

    /// Sources of distinct images (a `v` query makes each URL distinct).
    private func distinctURLs(_ count: Int, names: [String] = ["photo.jpg", "portrait.jpg", "alpha.png", "small.webp", "small.gif"]) -> [String] {
        (0..<count).map { imageURL(names[$0 % names.count], "v=\($0)") }
    }

    // MARK: - corruption

    func testCorruptedOriginalIsNeverServedAndIsDownloadedAgain() throws {
        let url = imageURL("tiny.jpg")
        let path = imagePath("tiny.jpg")
        assertExit(try get([url]), 0)  // to stdout: the original only
        let entries = try listed()
        XCTAssertEqual(entries.count, 1)
        guard let cached = entries.first?.string("path") else { return XCTFail("no path in \(entries)") }
        try corrupt(cached)

        let r = try get([url])
        assertExit(r, 0)
        XCTAssertEqual(try server.requestCount(path), 2, "the corrupted entry is a miss: one more request")
        XCTAssertEqual(r.stdout, try E2EPaths.fixtureData("tiny.jpg"), "the served bytes are the server's, not the corrupted ones")
        assertImage(r.stdout, .jpeg, width: 100, height: 67)
        let verify = try cache(["verify"])
        assertExit(verify, 0)
    }

    func testCorruptedVariantIsNeverServedAndIsDerivedAgain() throws {
        let url = imageURL("photo.jpg")
        let first = try get([url, "-s", "200", "--json", "-o", file("a.jpg").path])
        assertExit(first, 0)
        guard let variantPath = singleRecord(first).string("path") else { return XCTFail("no path in \(first)") }
        let good = try Data(contentsOf: file("a.jpg"))
        try corrupt(variantPath)

        let r = try get([url, "-s", "200", "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r).string("cache"), "derived", "the kept original is still good: \(r)")
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 1)
        assertImageFile(file("b.jpg"), .jpeg, width: 200, height: 133)
        XCTAssertEqual(try Data(contentsOf: file("b.jpg")).count, good.count)
    }

    func testCorruptedOriginalIsNotUsedToDeriveAVariant() throws {
        let url = imageURL("photo.jpg")
        assertExit(try get([url, "-s", "200", "-o", file("a.jpg").path]), 0)
        guard let original = try listed().first(where: { $0.string("variant") == "original" })?.string("path") else {
            return XCTFail("no original kept")
        }
        try corrupt(original)
        let r = try get([url, "-s", "120", "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r).string("cache"), "miss", "\(r)")
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 2, "a corrupted original needs the network")
        assertImageFile(file("b.jpg"), .jpeg, width: 120, height: 80)
    }

    func testVerifyReportsACorruptedEntryAndRepairRemovesIt() throws {
        let photo = imageURL("photo.jpg")
        assertExit(try get([photo, "-s", "100", "-o", file("a.jpg").path]), 0)
        assertExit(try get([imageURL("tiny.jpg")]), 0)
        let healthy = try cache(["verify"])
        assertExit(healthy, 0)
        XCTAssertTrue(healthy.stderr.contains("checked 3 entries"), "\(healthy)")

        let entries = try listed()
        guard let variant = entries.first(where: { $0.string("source") == photo && $0.string("variant") != "original" }),
              let key = variant.string("key"), let path = variant.string("path") else {
            return XCTFail("no variant of \(photo) in \(entries)")
        }
        try corrupt(path)

        let bad = try cache(["verify"])
        assertExit(bad, 1)
        XCTAssertTrue(bad.stdoutText.contains(String(key.prefix(12))), "names the entry's key:\n\(bad)")
        XCTAssertTrue(bad.stdoutText.contains(photo), "names the entry's source:\n\(bad)")
        XCTAssertEqual(bad.stdoutText.split(whereSeparator: \.isNewline).count, 1, "only the bad entry:\n\(bad)")
        XCTAssertEqual(try listed().count, 3, "verify without --repair changes nothing")

        let repair = try cache(["verify", "--repair"])
        assertExit(repair, 0)
        XCTAssertTrue(repair.stdoutText.contains(String(key.prefix(12))), "\(repair)")
        let left = try listed()
        XCTAssertEqual(left.count, 2, "\(left)")
        XCTAssertFalse(left.contains { $0.string("key") == key })
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "the bad file is removed")

        let after = try cache(["verify"])
        assertExit(after, 0)
    }

    func testVerifyReportsAMissingImageFile() throws {
        assertExit(try get([imageURL("tiny.jpg")]), 0)
        guard let path = try listed().first?.string("path") else { return XCTFail("nothing cached") }
        try FileManager.default.removeItem(atPath: path)
        let r = try cache(["verify"])
        assertExit(r, 1)
        XCTAssertTrue(r.stdoutText.contains(imageURL("tiny.jpg")), "\(r)")
        assertExit(try cache(["verify", "--repair"]), 0)
        assertExit(try cache(["verify"]), 0)
        XCTAssertTrue(try listed().isEmpty)
    }

    // MARK: - HTTP caching headers

    func testNoStoreIsNeverCached() throws {
        let query = "cc=no-store"
        let url = imageURL("tiny.jpg", query)
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        let r = try get([url, "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r).string("cache"), "miss")
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg", query)), 2, "no-store: every get downloads")
        XCTAssertTrue(try listed().isEmpty, "nothing is listed")
        assertImageFile(file("b.jpg"), .jpeg, width: 100, height: 67)
    }

    func testNoCacheRevalidatesEveryUse() throws {
        let query = "cc=no-cache"
        let url = imageURL("tiny.jpg", query)
        let path = imagePath("tiny.jpg", query)
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        for round in 1...2 {
            let r = try get([url, "--json", "-o", file("b\(round).jpg").path])
            assertExit(r, 0)
            let record = singleRecord(r)
            XCTAssertEqual(record.string("cache"), "revalidated", "round \(round): \(record)")
            XCTAssertEqual(record.int("downloaded_bytes"), 0, "round \(round): \(record)")
            assertImageFile(file("b\(round).jpg"), .jpeg, width: 100, height: 67)
        }
        let log = try server.requestLog().filter { $0.path == path }
        XCTAssertEqual(log.count, 3, "one download and two revalidations")
        let etag = "\"" + sha1Hex(try E2EPaths.fixtureData("tiny.jpg")) + "\""
        XCTAssertEqual(log.map(\.status), [200, 304, 304])
        for entry in log.dropFirst() {
            XCTAssertEqual(entry.headers["if-none-match"], etag, "conditional request: \(entry.headers)")
        }
    }

    func testMaxAgeIsAHitWithoutARequest() throws {
        let query = "cc=max-age=3600"
        let url = imageURL("tiny.jpg", query)
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        let r = try get([url, "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r).string("cache"), "hit")
        XCTAssertEqual(try server.totalRequests(), 1)
        let entry = try listed().first { $0.string("variant") == "original" }
        XCTAssertEqual(entry?["fresh"] as? Bool, true, "\(String(describing: entry))")
    }

    func testStaleEntryIsRevalidatedWith304AndNotDownloadedAgain() throws {
        let query = "cc=max-age=0"
        let url = imageURL("photo.jpg", query)
        let path = imagePath("photo.jpg", query)
        assertExit(try get([url, "-s", "300", "-o", file("a.jpg").path]), 0)
        let before = try listed()
        let r = try get([url, "-s", "300", "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        let record = singleRecord(r)
        XCTAssertEqual(record.string("cache"), "revalidated", "\(record)")
        XCTAssertEqual(record.int("downloaded_bytes"), 0, "\(record)")
        let log = try server.requestLog().filter { $0.path == path }
        XCTAssertEqual(log.map(\.status), [200, 304], "one download, one 304")
        XCTAssertNotNil(log.last?.headers["if-none-match"] ?? log.last?.headers["if-modified-since"])
        XCTAssertEqual(try Data(contentsOf: file("a.jpg")), try Data(contentsOf: file("b.jpg")), "the cached bytes are served")
        let after = try listed()
        XCTAssertEqual(Set(after.compactMap { $0.string("key") }), Set(before.compactMap { $0.string("key") }))
        XCTAssertEqual(Set(after.compactMap { $0.string("checksum") }), Set(before.compactMap { $0.string("checksum") }))
    }

    func testDerivedVariantNeedsNoRequest() throws {
        let url = imageURL("portrait.jpg")
        assertExit(try get([url, "-s", "400", "-o", file("a.jpg").path]), 0)
        let r = try get([url, "-s", "90x90", "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        let record = singleRecord(r)
        XCTAssertEqual(record.string("cache"), "derived", "\(record)")
        XCTAssertEqual(record.int("downloaded_bytes"), 0, "\(record)")
        XCTAssertEqual(try server.totalRequests(), 1)
        assertImageFile(file("b.jpg"), .jpeg, height: 90)
        let entries = try listed()
        XCTAssertEqual(entries.count, 3, "original, 400 and 90x90 variants")
        XCTAssertTrue(entries.contains { $0.string("key") == record.string("key") }, "the derived variant is cached")
    }

    // MARK: - the hard size limit

    /// Thumbnails are ~3 KB, but each original (~330 KB) is larger than the whole limit: a hard
    /// limit means no original can stay, and the cache never ends over the limit.
    func testHardSizeLimitHoldsDuringAPrefetch() throws {
        let urls = (0..<12).map { imageURL("photo.jpg", "v=\($0)") }
        let list = try writeList(urls)
        let limit = 200 * 1024
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--cache-size-limit", "200K", "-s", "100",
                              "--json", list.path], timeout: 60)
        assertExit(r, 0)
        let summary = r.json.first { $0["summary"] as? Bool == true } ?? [:]
        XCTAssertEqual(summary.int("ok"), 12, "evictions do not make a failure: \(summary)")

        let entries = try listed()
        let stats = try cache(["stats", "--json"])
        assertExit(stats, 0)
        let s = singleRecord(stats)
        let bytes = s.int("bytes") ?? .max
        XCTAssertLessThanOrEqual(bytes + 512 * (s.int("entries") ?? 0), limit,
                                 "the cache ends within --cache-size-limit 200K (bytes + 512 per entry): \(s)\n\(entries.map { "\($0.string("variant") ?? "?") \($0.int("bytes") ?? -1)" })")
        XCTAssertLessThanOrEqual(footprint(entries), limit)
        XCTAssertFalse(entries.contains { ($0.int("bytes") ?? 0) > limit },
                       "an original bigger than the limit is not kept: \(entries.map { $0.int("bytes") ?? -1 })")
        XCTAssertGreaterThan(entries.count, 0, "the thumbnails fit: the cache is not emptied")
        assertExit(try cache(["verify"]), 0)
    }

    // MARK: - concurrency and crashes

    func testTwoConcurrentPrefetchesIntoOneCache() throws {
        let urls = distinctURLs(20)
        let list = try writeList(urls)
        let args = ["prefetch", "--cache-dir", cacheDir.path, "-s", "120", "--json", list.path]
        let home = self.home!, work = self.work!
        let results = ResultSlots(count: 2)
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            results.set(i, try? Imgfetch.run(args, home: home, currentDirectory: work, timeout: 60))
        }
        for i in 0..<2 {
            guard let r = results.get(i) else { XCTFail("run \(i) did not start"); continue }
            assertExit(r, 0)
            let summary = r.json.first { $0["summary"] as? Bool == true } ?? [:]
            XCTAssertEqual(summary.int("ok"), 20, "run \(i): \(summary)")
            XCTAssertEqual(summary.int("failed"), 0, "run \(i): \(summary)")
        }
        let verify = try cache(["verify"])
        assertExit(verify, 0)
        let entries = try listed()
        XCTAssertEqual(entries.filter { $0.string("variant") != "original" }.count, 20, "one variant per source")
        XCTAssertEqual(entries.filter { $0.string("variant") == "original" }.count, 20, "one original per source")
        // And the cache serves everything afterwards without the network.
        let again = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-s", "120", "--cache-only", "--json", list.path])
        assertExit(again, 0)
    }

    /// A prune (evicting down to a small size) running again and again while a prefetch writes:
    /// both succeed, and the cache is valid afterwards (no torn entry, nothing served half-removed).
    func testPruneDuringAPrefetch() throws {
        let names = ["photo.jpg", "portrait.jpg", "alpha.png", "small.webp", "small.gif"]
        let urls = (0..<25).map { server.url("/slow/\(names[$0 % names.count])?seconds=0.03&v=\($0)") }
        let list = try writeList(urls)
        let home = self.home!, work = self.work!, dir = cacheDir.path
        let prefetchArgs = ["prefetch", "--cache-dir", dir, "-s", "100", "-j", "4", "--json", "--no-progress", list.path]
        let results = ResultSlots(count: 2)
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            if i == 0 {
                results.set(0, try? Imgfetch.run(prefetchArgs, home: home, currentDirectory: work, timeout: 60))
            } else {
                var last: RunResult?
                for _ in 0..<15 {
                    last = try? Imgfetch.run(["cache", "prune", "--max-size", "40K", "--cache-dir", dir], home: home,
                                             currentDirectory: work, timeout: 30)
                    if last?.status != 0 { break }
                    Thread.sleep(forTimeInterval: 0.03)
                }
                results.set(1, last)
            }
        }
        let prefetch = try XCTUnwrap(results.get(0))
        assertExit(prefetch, 0)
        let summary = prefetch.json.first { $0["summary"] as? Bool == true } ?? [:]
        XCTAssertEqual(summary.int("ok"), 25, "\(summary)")
        assertExit(try XCTUnwrap(results.get(1)), 0)
        assertExit(try cache(["verify"]), 0)
    }

    func testKillDashNineInTheMiddleLeavesAUsableCache() throws {
        // Each response is held 50 ms, so 30 of them with -j 4 take well over 0.3 s.
        let names = ["photo.jpg", "portrait.jpg", "alpha.png", "small.webp", "small.gif"]
        let urls = (0..<30).map { server.url("/slow/\(names[$0 % names.count])?seconds=0.05&v=\($0)") }
        let list = try writeList(urls)
        let args = ["prefetch", "--cache-dir", cacheDir.path, "-s", "150", "-j", "4", "--no-progress", list.path]
        let process = try launch(args)
        // Kill it in the middle: once downloads have started, ~0.3 s into the run.
        let started = Date()
        while try server.totalRequests() < 2 && process.isRunning && Date().timeIntervalSince(started) < 10 {
            Thread.sleep(forTimeInterval: 0.01)
        }
        Thread.sleep(forTimeInterval: max(0.05, 0.3 - Date().timeIntervalSince(started)))
        let wasRunning = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertFalse(process.isRunning, "the killed prefetch is gone")
        if wasRunning {
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "killed by SIGKILL")
        }
        let requested = try server.totalRequests()
        XCTAssertTrue(wasRunning, "the prefetch was still running when it was killed")

        let verify = try cache(["verify"])
        assertExit(verify, 0)
        let partial = try listed()
        XCTAssertLessThan(partial.filter { $0.string("variant") != "original" }.count, 30,
                          "the prefetch was stopped in the middle (\(requested) requests made)")
        for e in partial {
            XCTAssertTrue(FileManager.default.fileExists(atPath: e.string("path") ?? "-"), "a listed entry has its file: \(e)")
        }

        let rerun = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-s", "150", "-j", "4", "--json", list.path], timeout: 60)
        assertExit(rerun, 0)
        let summary = rerun.json.first { $0["summary"] as? Bool == true } ?? [:]
        XCTAssertEqual(summary.int("ok"), 30, "\(summary)")
        assertExit(try cache(["verify"]), 0)
        XCTAssertEqual(try listed().filter { $0.string("variant") != "original" }.count, 30)
    }
}

/// Results of concurrent runs, one slot each (shared by the concurrency tests). @unchecked: every
/// access to `slots` holds `lock`.
final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [RunResult?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: RunResult?) { lock.lock(); slots[i] = r; lock.unlock() }
    func get(_ i: Int) -> RunResult? { lock.lock(); defer { lock.unlock() }; return slots[i] }
}
