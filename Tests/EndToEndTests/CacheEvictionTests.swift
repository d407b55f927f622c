import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The cache a user fills (issue 21): originals kept as by-products yield to the thumbnails asked
/// for, evictions are said, and a writer killed in the middle of an eviction leaves a valid cache
/// whose limit the next command restores.
final class CacheEvictionTests: E2ETestCase {
    private func cache(_ args: [String]) throws -> RunResult {
        try imgfetch(["cache"] + args + ["--cache-dir", cacheDir.path])
    }

    private func summary(_ r: RunResult) -> [String: Any] {
        r.json.first { $0["summary"] as? Bool == true } ?? [:]
    }

    /// `cache stats --json` and the footprint the limit counts (bytes + 512 per entry).
    private func stats(limit: String, file: StaticString = #filePath, line: UInt = #line) throws -> (record: [String: Any], footprint: Int) {
        let r = try cache(["stats", "--json", "--cache-size-limit", limit])
        assertExit(r, 0, file: file, line: line)
        let s = singleRecord(r, file: file, line: line)
        return (s, (s.int("bytes") ?? .max / 2) + 512 * (s.int("entries") ?? 0))
    }

    /// 40 JPEGs of 336 KB (13 MB of originals) warmed at 64 px WebP under a 3 MB limit: the
    /// thumbnails (a few KB each) all stay, so the second identical run downloads nothing.
    func testThumbnailsAskedForOutliveTheOriginalsKeptBesideThem() throws {
        let urls = (0..<40).map { imageURL("photo.jpg", "v=\($0)") }
        let list = try writeList(urls)
        let args = ["prefetch", "--cache-dir", cacheDir.path, "--cache-size-limit", "3M", "-s", "64", "-f", "webp", "--no-progress"]
        let first = try imgfetch(args + ["--json", list.path], timeout: 120)
        assertExit(first, 0)
        let s1 = summary(first)
        XCTAssertEqual(s1.int("ok"), 40, "\(s1)")
        let evicted = s1.int("evicted") ?? 0
        XCTAssertGreaterThan(evicted, 20, "originals were evicted to fit 3M: \(s1)")
        XCTAssertGreaterThan(s1.int("evicted_bytes") ?? 0, 6_000_000, "\(s1)")
        XCTAssertTrue(first.stderr.contains("\(evicted) evicted ("), "the summary line says what was evicted:\n\(first.stderr)")

        let (after, footprint) = try stats(limit: "3M")
        XCTAssertLessThanOrEqual(footprint, 3 << 20, "within the limit after the run: \(after)")
        XCTAssertEqual(after.int("variants"), 40, "every thumbnail asked for is kept: \(after)")
        XCTAssertEqual(after.int("evictions"), evicted, "the running total counts the run's evictions: \(after)")
        XCTAssertEqual(after.int("limit"), 3 << 20)
        XCTAssertGreaterThan(after.int("originals") ?? 0, 0, "originals fill what the thumbnails leave: \(after)")
        XCTAssertEqual(after.int("originals"), after.int("byproduct_originals"))

        let second = try imgfetch(args + ["--json", list.path], timeout: 120)
        assertExit(second, 0)
        let s2 = summary(second)
        XCTAssertEqual(s2.int("hits"), 40, "the warm cache is warm: \(s2)")
        XCTAssertEqual(s2.int("bytes_downloaded"), 0, "\(s2)")
        XCTAssertEqual(s2.int("evicted"), 0, "\(s2)")
        XCTAssertEqual(s2.int("evicted_bytes"), 0)
        XCTAssertFalse(second.stderr.contains("evicted"), "nothing evicted, nothing said:\n\(second.stderr)")

        let originals = try cache(["ls", "--json", "--originals"])
        assertExit(originals, 0)
        XCTAssertTrue(originals.json.allSatisfy { $0.string("variant") == "original" && $0.string("kept") == "byproduct" })
        XCTAssertEqual(originals.json.count, after.int("originals"))
        let variants = try cache(["ls", "--json", "--variants"])
        XCTAssertEqual(variants.json.count, 40)
        assertExit(try cache(["verify"]), 0)
    }

    /// `get` of a source as it is stores its output as the original entry, asked for: a later
    /// thumbnail's by-products do not push it out; `get -v` says when its store evicted.
    func testAnOriginalAskedForIsKeptAndGetVerboseSaysWhatItEvicted() throws {
        let asked = imageURL("portrait.jpg", "v=asked")
        assertExit(try get(["--cache-size-limit", "1M", "-o", file("asked.jpg").path, asked]), 0)
        var evictedSomething = false
        for i in 0..<8 {
            let r = try get(["--cache-size-limit", "1M", "-s", "64", "-v", "-o", file("t\(i).jpg").path, imageURL("photo.jpg", "v=\(i)")])
            assertExit(r, 0)
            if r.stderr.contains("to stay within the cache's size limit") {
                evictedSomething = true
                XCTAssertTrue(r.stderr.contains(", evicted "), r.stderr)
            }
        }
        XCTAssertTrue(evictedSomething, "8 originals of 336 KB do not fit 1M: some get said it evicted")
        let again = try get(["--cache-size-limit", "1M", "--cache-only", "--json", "-o", file("again.jpg").path, asked])
        assertExit(again, 0)
        XCTAssertEqual(singleRecord(again).string("cache"), "hit", "the original asked for stays")
        XCTAssertLessThanOrEqual(try stats(limit: "1M").footprint, 1 << 20)
    }

    /// kill -9 at a random moment of a prefetch into a full cache (every store evicts, some list
    /// again), 30 times: each time `cache verify` finds a valid cache, and the next command ends
    /// within the limit.
    func testKillDashNineInTheMiddleOfAnEvictionLeavesAValidCacheWithinItsLimitAfterTheNextCommand() throws {
        let limit = "2M", limitBytes = 2 << 20
        let fill = try writeList((0..<30).map { imageURL("photo.jpg", "v=fill-\($0)") }, name: "fill.txt")
        assertExit(try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--cache-size-limit", limit, "-s", "64",
                                 "--no-progress", fill.path], timeout: 120), 0)
        var generator = SystemRandomNumberGenerator()
        var killedRunning = 0
        for round in 0..<30 {
            let names = ["photo.jpg", "portrait.jpg", "alpha.png", "progressive.jpg"]
            // Each response held 100 ms: with -j 4, 20 lines last >= 500 ms, well past the latest kill
            // (at 40 ms a run could end before a late kill once stores got faster).
            let list = try writeList((0..<20).map { server.url("/slow/\(names[$0 % names.count])?seconds=0.1&v=r\(round)-\($0)") },
                                     name: "round.txt")
            let process = try launch(["prefetch", "--cache-dir", cacheDir.path, "--cache-size-limit", limit, "-s", "64", "-j", "4",
                                      "--no-progress", list.path])
            Thread.sleep(forTimeInterval: Double.random(in: 0.02...0.35, using: &generator))
            if process.isRunning { killedRunning += 1 }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let verify = try cache(["verify"])
            XCTAssertEqual(verify.status, 0, "round \(round): a valid cache after kill -9:\n\(verify)")
            // The next command (a hit or a store) ends with the cache within its limit.
            let next = try get(["--cache-size-limit", limit, "-s", "64", "-o", file("next.jpg").path, imageURL("photo.jpg", "v=next-\(round)")])
            XCTAssertEqual(next.status, 0, "round \(round):\n\(next)")
            assertImage(try Data(contentsOf: file("next.jpg")), .jpeg, "round \(round)")
            let (s, footprint) = try stats(limit: limit)
            XCTAssertLessThanOrEqual(footprint, limitBytes, "round \(round): within the limit after the next command: \(s)")
        }
        XCTAssertGreaterThan(killedRunning, 20, "most prefetches were killed while running")
        // Every entry listed is served as it was stored (no torn entry): all hits, all decode.
        let listed = try cache(["ls", "--json", "--variants"]).json
        for e in listed.prefix(20) {
            guard let path = e.string("path") else { continue }
            let info = ImageInfo(data: try Data(contentsOf: URL(fileURLWithPath: path)))
            XCTAssertEqual(info?.complete, true, "\(e)")
        }
    }

    /// `v1/evict`, `v1/evictions` and `v1/scanning` are imgfetch's names (an untagged cache holding
    /// them is adopted), and a link at any of them is never written or read through.
    func testTheEvictionFilesAreImgfetchsAndLinksThereAreNeverWrittenThrough() throws {
        let fm = FileManager.default
        let v1 = cacheDir.appendingPathComponent("v1")
        let args = ["--cache-size-limit", "400K", "-s", "50"]
        for i in 0..<4 { assertExit(try get(args + ["-o", file("a\(i).jpg").path, imageURL("photo.jpg", "v=a\(i)")]), 0) }
        assertExit(try cache(["scan", "--cache-size-limit", "400K"]), 0)
        XCTAssertTrue(fm.fileExists(atPath: v1.appendingPathComponent("evict").path), "a scan writes the candidate list")
        XCTAssertTrue(fm.fileExists(atPath: v1.appendingPathComponent("evictions").path), "evictions were counted")
        try fm.removeItem(at: cacheDir.appendingPathComponent("CACHEDIR.TAG"))
        assertExit(try cache(["prune", "--expired"]), 0)   // refused (exit 4) if a name were foreign

        let precious = root.appendingPathComponent("precious.txt")
        try Data("precious\n".utf8).write(to: precious)
        let absent = root.appendingPathComponent("would-be-created")
        for name in ["evict", "evictions", "scanning"] {
            try? fm.removeItem(at: v1.appendingPathComponent(name))
            try fm.createSymbolicLink(at: v1.appendingPathComponent(name), withDestinationURL: name == "scanning" ? absent : precious)
        }
        for i in 0..<4 { assertExit(try get(args + ["-o", file("b\(i).jpg").path, imageURL("portrait.jpg", "v=b\(i)")]), 0) }
        assertExit(try cache(["scan", "--cache-size-limit", "400K"]), 0)
        waitFor("the background scans the gets started to end") { !backgroundScanRuns() }
        XCTAssertEqual(try String(contentsOf: precious, encoding: .utf8), "precious\n", "no link's target is written")
        XCTAssertFalse(fm.fileExists(atPath: absent.path), "no link's target is created")
        let (s, footprint) = try stats(limit: "400K")
        XCTAssertLessThanOrEqual(footprint, 400 << 10, "\(s)")
        assertExit(try cache(["verify"]), 0)
    }

    /// Whether an `imgfetch cache scan` of this test's cache runs (the detached scan a get starts).
    private func backgroundScanRuns() -> Bool {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { Int($0) != nil } ?? []
        return pids.contains { pid in
            let words = (FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()).split(separator: 0)
                .map { String(decoding: $0, as: UTF8.self) }
            return words.count > 3 && words[1] == "cache" && words[2] == "scan" && words.contains { $0.contains(root.lastPathComponent) }
        }
    }
}
