import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `imgfetch prefetch`: list format, per-line options, counts of the summary record, exit codes,
/// sharding, rate and concurrency limits, progress output.
final class PrefetchTests: E2ETestCase {
    // MARK: - helpers

    /// `imgfetch prefetch --no-robots --cache-dir CACHE ARGS`: these tests count the lines' requests
    /// (robots.txt is RobotsTests').
    private func prefetch(_ args: [String], stdin: Data? = nil, timeout: TimeInterval = 30) throws -> RunResult {
        try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path] + args, stdin: stdin, timeout: timeout)
    }

    /// The one summary record (`"summary": true`), which must be the last line of stdout.
    private func summary(_ r: RunResult, file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        let summaries = r.json.filter { $0["summary"] as? Bool == true }
        XCTAssertEqual(summaries.count, 1, "exactly one summary record:\n\(r)", file: file, line: line)
        XCTAssertEqual(r.json.last?["summary"] as? Bool, true, "the summary comes last:\n\(r)", file: file, line: line)
        return summaries.first ?? [:]
    }

    /// The result records (everything but the summary).
    private func results(_ r: RunResult) -> [[String: Any]] {
        r.json.filter { $0["summary"] as? Bool != true }
    }

    /// Asserts the summary's counts; keys not given are not checked.
    private func assertCounts(_ s: [String: Any], _ expected: [String: Int],
                              file: StaticString = #filePath, line: UInt = #line) {
        for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(s.int(key), value, "summary \(key) in \(s)", file: file, line: line)
        }
    }

    private func tinyURLs(_ count: Int, _ prefix: String = "v") -> [String] {
        (0..<count).map { imageURL("tiny.jpg", "\(prefix)=\($0)") }
    }

    // MARK: - list format and counts

    func testMixedListReportsMalformedLinesAndCountsEverything() throws {
        let a = imageURL("tiny.jpg", "v=a")
        let b = imageURL("small.webp")
        let notFound = server.url("/status/404")
        let broken = imageURL("truncated.jpg")
        let list = try writeList([
            "# warm the cache",            // 1
            a,                             // 2
            "",                            // 3
            "  \(b)",                      // 4
            "ftp://x",                     // 5  malformed
            a,                             // 6  duplicate
            notFound,                      // 7  404
            broken,                        // 8  invalid image
            "\(imageURL("small.gif")) bogus=1",  // 9  malformed
            "# the end",                   // 10
        ])
        let r = try prefetch(["--json", "-j", "4", list.path])
        assertExit(r, 1)

        for n in [5, 9] {
            XCTAssertTrue(r.stderrLines.contains { $0.contains("\(list.path):\(n):") }, "\(list.path):\(n): on stderr:\n\(r)")
        }
        for n in [1, 2, 3, 4, 6, 7, 8, 10] {
            XCTAssertFalse(r.stderr.contains("\(list.path):\(n):"), "line \(n) is not malformed:\n\(r)")
        }
        XCTAssertTrue(r.stderrLines.contains { $0.contains(":5:") && $0.contains("ftp://x") }, "the message shows the line's source:\n\(r)")
        XCTAssertTrue(r.stderrLines.contains { $0.contains(notFound) }, "the failure names its source:\n\(r)")
        XCTAssertTrue(r.stderrLines.contains { $0.contains(broken) }, "the failure names its source:\n\(r)")

        let s = summary(r)
        assertCounts(s, ["total": 5, "ok": 3, "failed": 2, "malformed": 2, "low_data": 0, "skipped": 0])
        // The duplicate: a hit when its first copy was done, else it shared that retrieval (-j 4).
        XCTAssertEqual((s.int("hits") ?? 0) + (s.int("shared") ?? 0), 1, "\(s)")
        let downloaded = try E2EPaths.fixtureData("tiny.jpg").count + E2EPaths.fixtureData("small.webp").count
        XCTAssertEqual(s.int("bytes_downloaded"), downloaded, "the duplicate downloads nothing: \(s)")
        XCTAssertEqual(s["interrupted"] as? Bool, false, "\(s)")
        XCTAssertNotNil(s.double("ms"), "\(s)")

        let records = results(r)
        XCTAssertEqual(records.count, 5, "one record per source line:\n\(r)")
        XCTAssertEqual(records.filter { $0.string("original_source") == a }.map { $0.string("status") }, ["ok", "ok"])
        XCTAssertEqual(Set(records.filter { $0.string("original_source") == a }.compactMap { $0.string("cache") }), ["miss", "hit"])
        let failures = records.filter { $0.string("status") == "failed" }
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: failures.map { ($0.string("original_source") ?? "?", errorCode($0) ?? "?") }),
                       [notFound: "http_status", broken: "invalid_image"])

        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg", "v=a")), 1, "the duplicate makes no second request")
        XCTAssertEqual(try server.requestCount(imagePath("small.webp")), 1)
        XCTAssertEqual(try server.requestCount(imagePath("small.gif")), 0, "a malformed line is skipped")
        XCTAssertEqual(try server.totalRequests(), 4)
    }

    func testSecondRunIsAllHitsWithoutARequest() throws {
        let urls = [imageURL("tiny.jpg"), imageURL("small.webp"), imageURL("small.gif"),
                    imageURL("photo.jpg"), imageURL("alpha.png")]
        let list = try writeList(urls)
        let first = try prefetch(["--json", "-s", "160", list.path])
        assertExit(first, 0)
        assertCounts(summary(first), ["total": 5, "ok": 5, "failed": 0, "hits": 0])
        let requests = try server.totalRequests()
        XCTAssertEqual(requests, 5)

        let second = try prefetch(["--json", "-s", "160", list.path])
        assertExit(second, 0)
        let s = summary(second)
        assertCounts(s, ["total": 5, "ok": 5, "failed": 0, "hits": 5, "bytes_downloaded": 0])
        XCTAssertEqual(s.int("hits"), s.int("ok"))
        XCTAssertEqual(try server.totalRequests(), requests, "a warm cache needs no request")
        XCTAssertEqual(Set(results(second).compactMap { $0.string("cache") }), ["hit"])
        for record in results(second) {
            XCTAssertTrue(FileManager.default.fileExists(atPath: record.string("path") ?? "-"), "\(record)")
        }
    }

    func testReadsTheListFromStdin() throws {
        let urls = tinyURLs(3)
        let input = Data((urls[0] + "\nnot a url at all://\n" + urls[1] + "\n" + urls[2] + "\n").utf8)

        let dash = try prefetch(["--json", "-"], stdin: input)
        assertExit(dash, 1)
        assertCounts(summary(dash), ["total": 3, "ok": 3, "malformed": 1])
        XCTAssertTrue(dash.stderr.contains("stdin:2:"), "stdin's malformed line is stdin:2:\n\(dash)")
        XCTAssertEqual(try server.totalRequests(), 3)

        let more = tinyURLs(2, "w")
        let implicit = try prefetch(["--json"], stdin: Data(more.joined(separator: "\n").utf8))  // no final newline
        assertExit(implicit, 0)
        assertCounts(summary(implicit), ["total": 2, "ok": 2, "hits": 0])
        XCTAssertEqual(Set(results(implicit).compactMap { $0.string("original_source") }), Set(more))
    }

    func testEmptyListsExit0WithZeroSummary() throws {
        let zeros = ["total": 0, "ok": 0, "failed": 0, "hits": 0, "low_data": 0, "bytes_downloaded": 0,
                     "malformed": 0, "skipped": 0]
        let empty = try prefetch(["--json", try writeList([], name: "empty.txt").path])
        assertExit(empty, 0)
        XCTAssertEqual(empty.json.count, 1, "only the summary:\n\(empty)")
        assertCounts(summary(empty), zeros)

        let onlyComments = try prefetch(["--json", try writeList(["# nothing", "", "   ", "#x"], name: "comments.txt").path])
        assertExit(onlyComments, 0)
        assertCounts(summary(onlyComments), zeros)

        let emptyStdin = try prefetch(["--json", "-"], stdin: Data())
        assertExit(emptyStdin, 0)
        assertCounts(summary(emptyStdin), zeros)
        XCTAssertEqual(try server.totalRequests(), 0)
    }

    func testUnreadableListIsAUsageErrorNamingIt() throws {
        let missing = file("no-such-list.txt").path
        let r = try prefetch([missing])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains(missing), "names the list:\n\(r)")
        XCTAssertTrue(r.stdout.isEmpty, "\(r)")

        let directory = work.path
        let d = try prefetch(["--json", directory])
        assertExit(d, 2)
        XCTAssertTrue(d.stderr.contains(directory), "names the list:\n\(d)")
        XCTAssertEqual(try server.totalRequests(), 0)
    }

    func testCacheOnlyWithNothingCachedExits3() throws {
        let list = try writeList(tinyURLs(2))
        let r = try prefetch(["--cache-only", "--json", list.path])
        assertExit(r, 3)
        assertCounts(summary(r), ["total": 2, "ok": 0, "failed": 2])
        XCTAssertEqual(Set(results(r).compactMap(errorCode)), ["not_cached"])
        XCTAssertEqual(try server.totalRequests(), 0)
    }

    // MARK: - per-line options

    func testPerLineLowDataSourceInLowDataMode() throws {
        let photos = (1...2).map { imageURL("photo.jpg", "v=\($0)") }
        let smalls = (1...2).map { imageURL("tiny.jpg", "v=\($0)") }
        let plain = imageURL("small.webp")
        let list = try writeList(["\(photos[0]) low-data=\(smalls[0])", "\(photos[1])\tlow-data=\(smalls[1])", plain])

        let r = try prefetch(["--low-data", "--json", list.path])
        assertExit(r, 0)
        assertCounts(summary(r), ["total": 3, "ok": 3, "failed": 0, "low_data": 2])
        for (photo, small) in zip(photos, smalls) {
            let record = results(r).first { $0.string("original_source") == photo } ?? [:]
            XCTAssertEqual(record["low_data"] as? Bool, true, "\(record)")
            XCTAssertEqual(record.string("source"), small, "\(record)")
            XCTAssertEqual(try server.requestCount(imagePath("photo.jpg", "v=\(photos.firstIndex(of: photo)! + 1)")), 0,
                           "the original is never requested in low-data mode")
        }
        let plainRecord = results(r).first { $0.string("original_source") == plain } ?? [:]
        XCTAssertEqual(plainRecord["low_data"] as? Bool, false, "a line without low-data= loads normally: \(plainRecord)")
        XCTAssertEqual(try server.totalRequests(), 3)

        // Without low-data mode, the per-line low-data source is not used.
        let normal = try imgfetch(["prefetch", "--no-robots", "--cache-dir", root.appendingPathComponent("other").path, "--json", list.path])
        assertExit(normal, 0)
        assertCounts(summary(normal), ["ok": 3, "low_data": 0])
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg", "v=1")), 1)
    }

    func testPerLineAlternativesAfterA404() throws {
        let notFound = server.url("/status/404")
        let gone = server.url("/status/410")
        let alt = imageURL("tiny.jpg")
        let list = try writeList(["\(notFound) alt=\(gone) alt=\(alt)", "\(server.url("/status/404?x=2")) alt=\(server.url("/status/500"))"])
        let r = try prefetch(["--json", list.path])
        assertExit(r, 1)
        assertCounts(summary(r), ["total": 2, "ok": 1, "failed": 1])
        let record = results(r).first { $0.string("original_source") == notFound } ?? [:]
        XCTAssertEqual(record.string("status"), "ok", "\(record)")
        XCTAssertEqual(record.string("source"), alt, "\(record)")
        XCTAssertEqual(try server.requestCount("/status/404"), 1)
        XCTAssertEqual(try server.requestCount("/status/410"), 1, "alternatives are tried in order")
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg")), 1)
        XCTAssertEqual(try server.requestCount("/status/500"), 1, "the second line's alternative is tried too")
    }

    // MARK: - shards

    func testShardsPartitionTheListExactly() throws {
        let urls = tinyURLs(30)
        let list = try writeList(urls)
        var slices: [Set<String>] = []
        for k in 1...3 {
            let r = try prefetch(["--shard", "\(k)/3", "--json", list.path])
            assertExit(r, 0)
            let sources = results(r).compactMap { $0.string("original_source") }
            XCTAssertEqual(Set(sources).count, sources.count, "shard \(k) fetches each source once")
            let s = summary(r)
            assertCounts(s, ["ok": sources.count, "failed": 0, "skipped": 30 - sources.count])
            slices.append(Set(sources))
        }
        XCTAssertEqual(slices.reduce(Set<String>()) { $0.union($1) }, Set(urls), "the shards cover the list")
        for i in 0..<3 {
            for j in (i + 1)..<3 {
                XCTAssertTrue(slices[i].isDisjoint(with: slices[j]), "shards \(i + 1) and \(j + 1) overlap: \(slices[i].intersection(slices[j]))")
            }
        }
        XCTAssertEqual(try server.totalRequests(), 30, "each source is requested by one shard only")

        // Deterministic: the same shard again selects the same lines (all hits now).
        let again = try prefetch(["--shard", "2/3", "--json", list.path])
        assertExit(again, 0)
        XCTAssertEqual(Set(results(again).compactMap { $0.string("original_source") }), slices[1])
    }

    func testShardOutOfRangeIsAUsageError() throws {
        let list = try writeList(tinyURLs(3))
        for bad in ["0/3", "4/3", "1/0", "x/3", "3"] {
            let r = try prefetch(["--shard", bad, "--json", list.path])
            assertExit(r, 2)
            XCTAssertTrue(r.stderr.contains("--shard"), "names the option for \(bad):\n\(r)")
            XCTAssertTrue(r.stdout.isEmpty, "\(r)")
        }
        XCTAssertEqual(try server.totalRequests(), 0)
    }

    // MARK: - rate and concurrency

    func testRateSpacesTheRequests() throws {
        let urls = tinyURLs(6)
        let list = try writeList(urls)
        let r = try prefetch(["--rate", "5", "-j", "6", "--json", list.path])
        assertExit(r, 0)
        assertCounts(summary(r), ["ok": 6])
        XCTAssertGreaterThanOrEqual(r.elapsed, 0.95, "6 requests at 5 per second take at least 1 s")
        let times = try server.requestLog().map(\.t).sorted()
        XCTAssertEqual(times.count, 6)
        for (earlier, later) in zip(times, times.dropFirst()) {
            XCTAssertGreaterThanOrEqual(later - earlier, 0.15, "requests are spaced: \(times.map { String(format: "%.3f", $0 - times[0]) })")
        }
        if let first = times.first, let last = times.last {
            XCTAssertGreaterThanOrEqual(last - first, 0.9)
        }
    }

    func testJobsLimitsTransfersInFlight() throws {
        let urls = (0..<6).map { server.url("/slow/tiny.jpg?seconds=0.4&v=\($0)") }
        let list = try writeList(urls)
        let r = try prefetch(["-j", "2", "--json", list.path])
        assertExit(r, 0)
        assertCounts(summary(r), ["total": 6, "ok": 6, "failed": 0])
        XCTAssertEqual(Set(results(r).compactMap { $0.string("original_source") }), Set(urls))
        XCTAssertGreaterThanOrEqual(r.elapsed, 1.1, "3 waves of 0.4 s with 2 at a time")
        let times = try server.requestLog().map(\.t).sorted()
        XCTAssertEqual(times.count, 6)
        if times.count == 6 {
            let offsets = times.map { String(format: "%.3f", $0 - times[0]) }
            XCTAssertLessThan(times[1] - times[0], 0.3, "two transfers run at once: \(offsets)")
            XCTAssertGreaterThanOrEqual(times[2] - times[0], 0.35, "the third waits for a free slot: \(offsets)")
            XCTAssertGreaterThanOrEqual(times[4] - times[0], 0.75, "the fifth waits for the second wave: \(offsets)")
        }
    }

    // MARK: - progress

    func testNoProgressOutputWhenStderrIsNotATerminal() throws {
        let list = try writeList(tinyURLs(3))
        let r = try prefetch(["--json", list.path])
        assertExit(r, 0)
        XCTAssertFalse(r.stderr.contains("\r"), "no progress bar on a pipe:\n\(r.stderr.debugDescription)")
        XCTAssertFalse(r.stderr.contains("\u{1B}["), "no terminal escapes on a pipe:\n\(r.stderr.debugDescription)")
    }

    func testProgressFlagForcesTheProgressBar() throws {
        let list = try writeList(tinyURLs(3))
        let r = try prefetch(["--progress", "--json", list.path])
        assertExit(r, 0)
        XCTAssertTrue(r.stderr.contains("\r"), "--progress draws the bar:\n\(r.stderr.debugDescription)")
        XCTAssertFalse(r.stdoutText.contains("\r"), "the bar never goes to stdout")
        assertCounts(summary(r), ["ok": 3])

        let off = try prefetch(["--progress", "--no-progress", "--json", list.path])
        assertExit(off, 0)
        XCTAssertFalse(off.stderr.contains("\r"), "--no-progress wins:\n\(off.stderr.debugDescription)")
    }

    // MARK: - interruption

    func testInterruptStopsWithExit130AndASummary() throws {
        try assertInterruptStopsEverything()
    }

    func testInterruptStopsEverythingWithARateLimitToo() throws {
        try assertInterruptStopsEverything(["--rate", "1000"])   // one more loader between pipeline and curl
    }

    func assertInterruptStopsEverything(_ extra: [String] = []) throws {
        let urls = (0..<6).map { server.url("/slow/tiny.jpg?seconds=5&v=\($0)") }
        let list = try writeList(urls)
        guard let binary = E2EPaths.binary else { throw Imgfetch.NotBuilt() }
        let out = file("out.ndjson"), err = file("err.txt")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: out), errHandle = try FileHandle(forWritingTo: err)
        defer { try? outHandle.close(); try? errHandle.close() }

        let process = Process()
        process.executableURL = binary
        process.arguments = ["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "-j", "2", "--json"] + extra + [list.path]
        process.environment = Imgfetch.baseEnvironment(home: home)
        process.currentDirectoryURL = work
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // Wait until both transfers of -j 2 are under way (the server holds each for 5 s; the other
        // four retrievals wait for a connection inside libcurl), then Ctrl-C.
        var deadline = Date().addingTimeInterval(10)
        while try server.totalRequests() < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        Thread.sleep(forTimeInterval: 0.1)
        let requestsBefore = try server.totalRequests()
        XCTAssertEqual(requestsBefore, 2, "-j 2: two transfers at once")
        let signalled = Date()
        kill(process.processIdentifier, SIGINT)
        deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertFalse(process.isRunning, "prefetch exits after SIGINT")
        guard !process.isRunning else { return }
        XCTAssertLessThan(Date().timeIntervalSince(signalled), 3, "in-flight transfers are cancelled, not waited for")
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 130)

        let stdout = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        let records = stdout.split(whereSeparator: \.isNewline).compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        let s = records.last { $0["summary"] as? Bool == true } ?? [:]
        XCTAssertEqual(s["interrupted"] as? Bool, true, "the summary says so: \(stdout)")
        XCTAssertEqual(s.int("ok"), 0, "\(s)")
        XCTAssertEqual(try server.totalRequests(), requestsBefore, "nothing new starts after the interrupt")
        XCTAssertLessThan(s.int("total") ?? 0, urls.count, "not every line was processed: \(s)")
        assertExit(try imgfetch(["cache", "verify", "--cache-dir", cacheDir.path]), 0)
    }
}
