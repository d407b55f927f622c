import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The dead-host breaker (`--host-down-after`, marks in the cache directory) and the host-wide
/// hold after a 429.
final class HostDownTests: E2ETestCase {
    private func records(_ r: RunResult) -> [[String: Any]] {
        r.stdoutText.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["summary"] == nil }
    }

    private func causes(_ r: RunResult) -> [String] {
        records(r).compactMap { ($0["error"] as? [String: Any])?["cause"] as? String }
    }

    func testAnOriginThatRefusesIsMarkedDownAndTheNextRunSkipsIt() throws {
        let port = try LocalPorts.free()
        let dead = (1...12).map { "http://127.0.0.1:\(port)/d\($0).jpg" }
        let list = try writeList(dead + [imageURL("tiny.jpg")])
        let first = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--json", "-j", "1", "--host-down-after", "2", list.path])
        assertExit(first, 1)
        let causes = causes(first)
        XCTAssertEqual(causes.count, 12)
        XCTAssertGreaterThanOrEqual(causes.filter { $0 == "host_down" }.count, 4, "\(causes)")
        XCTAssertTrue(causes.allSatisfy { $0 == "refused" || $0 == "host_down" }, "\(causes)")
        XCTAssertEqual(records(first).filter { $0["status"] as? String == "ok" }.count, 1, "another origin still runs")
        let downRecord = try XCTUnwrap(records(first).first { ($0["error"] as? [String: Any])?["code"] as? String == "host_down" })
        XCTAssertEqual(downRecord["attempts"] as? Int, 0, "not tried")
        XCTAssertTrue(first.stderr.contains("is marked down since") && first.stderr.contains("refused"), first.stderr)

        // The next run (another process on the same cache) skips the host at once.
        let again = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--json", list.path])
        XCTAssertEqual(self.causes(again), Array(repeating: "host_down", count: 12))
        let stats = try imgfetch(["cache", "stats", "--cache-dir", cacheDir.path])
        XCTAssertTrue(stats.stdoutText.contains("http://127.0.0.1:\(port)"), stats.stdoutText)
        let json = try imgfetch(["cache", "stats", "--json", "--cache-dir", cacheDir.path])
        let hosts = (try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])?["hosts_down"] as? [[String: Any]]
        XCTAssertEqual(hosts?.first?["origin"] as? String, "http://127.0.0.1:\(port)")

        // --force-refresh clears the mark: the host is tried again.
        let forced = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--json", "--force-refresh", "--host-down-after", "0", list.path])
        XCTAssertEqual(self.causes(forced), Array(repeating: "refused", count: 12))
        let cleared = try imgfetch(["cache", "stats", "--json", "--cache-dir", cacheDir.path])
        XCTAssertEqual(((try JSONSerialization.jsonObject(with: cleared.stdout) as? [String: Any])?["hosts_down"] as? [Any])?.count, 0)
    }

    /// 40 lines on a host that drops SYNs (a listener whose accept queue is full) between 40 alive
    /// ones, at --connect-timeout 2 --retry 2 -j 4: the dead host's lines end host_down, not each
    /// paying its timeouts; the alive lines are all served. Then the same again: all 40 host_down.
    func testFortyLinesOnADeadHostMostlyFailAtOnce() throws {
        let listener = try LocalPorts.fullListener()
        defer { ([listener.fd] + listener.fillers).forEach { close($0) } }
        let lines = (0..<40).flatMap { ["http://127.0.0.1:\(listener.port)/d\($0).jpg", imageURL("tiny.jpg", "v=\($0)")] }
        let list = try writeList(lines)
        let args = ["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--json", "--connect-timeout", "2", "--retry", "2", "-j", "4", list.path]
        let first = try imgfetch(args, timeout: 120)
        XCTAssertEqual(records(first).filter { $0["status"] as? String == "ok" }.count, 40, first.stderr)
        XCTAssertGreaterThanOrEqual(causes(first).filter { $0 == "host_down" }.count, 30, "\(causes(first))")
        let again = try imgfetch(args, timeout: 120)
        XCTAssertEqual(causes(again), Array(repeating: "host_down", count: 40))
        // At scale, one line for the dead host, with its count, not a line each (issue 43); -v lists each.
        let origin = "http://127.0.0.1:\(listener.port)"
        let said = again.stderrLines.filter { $0.contains(origin) }
        XCTAssertEqual(said.count, 1, again.stderr)
        XCTAssertTrue(said.first?.contains("is marked down since") == true, again.stderr)
        XCTAssertTrue(said.first?.hasSuffix("40 lines failed without a request (-v lists each)") == true, again.stderr)
        let verbose = try imgfetch(args + ["-v"], timeout: 120)
        XCTAssertEqual(verbose.stderrLines.filter { $0.contains("is marked down since") }.count, 40, verbose.stderr)
    }

    func testAHostileMarkIsIgnored() throws {
        let port = try LocalPorts.free()
        let url = "http://127.0.0.1:\(port)/a.jpg"
        let first = try get([url, "--host-down-after", "1"])
        assertExit(first, 6)
        let marks = cacheDir.appendingPathComponent("v1/down")
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: marks.path).first)
        // Another origin's mark under this name, then garbage: neither is obeyed.
        for text in ["imgfetch-host-down 1\nhttp://other:80\n0\n9999999999\nx\n", String(repeating: "\u{1}", count: 5000)] {
            try text.write(to: marks.appendingPathComponent(name), atomically: true, encoding: .utf8)
            let r = try get([url, "--json", "--host-down-after", "0"])
            XCTAssertEqual((singleRecord(r)["error"] as? [String: Any])?["cause"] as? String, "refused")
        }
    }

    /// A connect failure under `--resolve` (the run's own address for the host) marks the origin
    /// down for that run only: the cache directory gets no mark, and a run without the override
    /// reaches the real origin.
    func testAFailureUnderResolveMarksNoOtherRun() throws {
        let urls = (1...12).map { "http://localhost:\(server.port)/img/tiny.jpg?v=r\($0)" }
        let list = try writeList(urls)
        let overridden = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--json", "-j", "1", "--host-down-after", "1",
                                       "--resolve", "localhost:\(server.port):127.0.0.2", list.path])
        assertExit(overridden, 1)
        let causes = causes(overridden)
        XCTAssertEqual(causes.count, 12)
        XCTAssertTrue(causes.contains("host_down") && causes.allSatisfy { $0 == "refused" || $0 == "host_down" },
                      "the run's own breaker still works: \(causes)")
        let marks = cacheDir.appendingPathComponent("v1/down").path
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: marks)) ?? [], [], "no mark for other runs")
        let stats = try imgfetch(["cache", "stats", "--json", "--cache-dir", cacheDir.path])
        XCTAssertEqual(((try JSONSerialization.jsonObject(with: stats.stdout) as? [String: Any])?["hosts_down"] as? [Any])?.count, 0)
        let real = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--json", list.path])
        assertExit(real, 0)
        XCTAssertEqual(records(real).filter { $0["status"] as? String == "ok" }.count, 12, real.stderr)
    }

    /// The transfers already queued in the curl engine for the host (`--per-host 1`: one at a
    /// time) are held by a 429's Retry-After too: none arrives before the hold ends. (After it, the
    /// origin is paced at one start per `--backoff-base`: 0.2 s keeps the run short.)
    func testA429HoldsTheTransfersAlreadyQueuedForTheHost() throws {
        let lines = [server.url("/flaky/queued?fail=1&code=429&retry_after=2&img=tiny.jpg")]
            + (1...24).map { imageURL("tiny.jpg", "v=q\($0)") }
        let list = try writeList(lines)
        let r = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--json", "--retry", "1", "--retry-delay", "0.1",
                              "--backoff-base", "0.2", "-j", "8", "--per-host", "1", list.path], timeout: 60)
        assertExit(r, 0)
        XCTAssertEqual(records(r).filter { $0["status"] as? String == "ok" }.count, 25, r.stderr)
        let log = try server.requestLog().filter { !$0.path.hasPrefix("/__") }
        let refused = try XCTUnwrap(log.first { $0.status == 429 })
        // One transfer at a time: every request that arrives after the 429's started after its answer.
        let inside = log.filter { $0.t > refused.t && $0.t < refused.t + 1.9 }
        XCTAssertEqual(inside.map(\.path), [], "requests inside the hold: \(log.map { ($0.path, $0.t - refused.t) })")
    }

    /// The same at `-j 8` without a per-host cap: the 24 other requests take 0.6 s each, so the
    /// transfers that start in the slots they free (queued in the engine before the 429 came) would
    /// arrive inside the hold; none does (the old engine let in 11 of them, in 2 runs of 4).
    func testA429HoldsTheTransfersQueuedForAFreeSlot() throws {
        let lines = [server.url("/flaky/slots?fail=1&code=429&retry_after=2&img=tiny.jpg")]
            + (1...24).map { server.url("/slow/tiny.jpg?seconds=0.6&v=s\($0)") }
        let list = try writeList(lines)
        let r = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--json", "--retry", "1", "--retry-delay", "0.1",
                              "--backoff-base", "0.2", "-j", "8", list.path], timeout: 60)
        assertExit(r, 0)
        XCTAssertEqual(records(r).filter { $0["status"] as? String == "ok" }.count, 25, r.stderr)
        let log = try server.requestLog().filter { !$0.path.hasPrefix("/__") }
        let refused = try XCTUnwrap(log.first { $0.status == 429 })
        // Those sent with the 429 arrive with it; a transfer started in a freed slot, 0.6 s later.
        let inside = log.filter { $0.t > refused.t + 0.3 && $0.t < refused.t + 1.9 }
        XCTAssertEqual(inside.map(\.path), [], "requests inside the hold: \(log.map { ($0.path, $0.t - refused.t) })")
    }

    /// A 503 that is not retried (`--retry 0`) holds nothing, whatever its Retry-After: the host's
    /// queued transfers start as soon as its line has failed.
    func testA503NotRetriedHoldsNothing() throws {
        let lines = [server.url("/flaky/once?fail=1&code=503&retry_after=3&img=tiny.jpg")]
            + (1...11).map { imageURL("tiny.jpg", "v=n\($0)") }
        let list = try writeList(lines)
        let r = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--json", "--retry", "0", "-j", "4", "--per-host", "1", list.path])
        assertExit(r, 1)
        XCTAssertEqual(records(r).filter { $0["status"] as? String == "ok" }.count, 11, r.stderr)
        let log = try server.requestLog().filter { !$0.path.hasPrefix("/__") }
        let refused = try XCTUnwrap(log.first { $0.status == 503 })
        guard let next = log.map(\.t).filter({ $0 > refused.t }).min() else { return }   // the 503's line ran last
        XCTAssertLessThan(next - refused.t, 1.5, "the next request waited for a hold: \(log.map { ($0.path, $0.t - refused.t) })")
    }

    /// One request of the host gets 429 with Retry-After: 2; no new request to that host starts
    /// within those 2 s, and every line is served.
    func testA429HoldsTheWholeHost() throws {
        let lines = [server.url("/flaky/held?fail=1&code=429&retry_after=2&img=tiny.jpg")]
            + (1...5).map { imageURL("tiny.jpg", "v=\($0)") }
        let list = try writeList(lines)
        let r = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--json", "--retry", "1", "--retry-delay", "0.1",
                              "--rate", "4", "-j", "8", list.path])
        assertExit(r, 0)
        XCTAssertEqual(records(r).filter { $0["status"] as? String == "ok" }.count, 6, r.stderr)
        XCTAssertTrue(r.stderr.contains("the host's other requests wait too"), r.stderr)
        let log = try server.requestLog().filter { !$0.path.hasPrefix("/__") }
        let refused = try XCTUnwrap(log.first { $0.status == 429 })
        let inside = log.filter { $0.t > refused.t + 0.01 && $0.t < refused.t + 1.9 }
        XCTAssertEqual(inside.map(\.path), [], "requests inside the hold: \(log.map { ($0.path, $0.t - refused.t) })")
    }
}
