import Foundation
import XCTest

/// An origin backed off without being told (`--backoff-base`, `--backoff-max`), every transfer of a
/// batch bounded (`--timeout`, `--speed-limit`/`--speed-time`) and the run's watchdog
/// (`--stall-timeout`, exit 8): against the test server's 429s, blackhole and trickle.
final class PolitenessBoundsTests: E2ETestCase {
    private func records(_ r: RunResult) -> [[String: Any]] { r.json.filter { $0["summary"] == nil } }
    private func summary(_ r: RunResult) -> [String: Any] { r.json.last { $0["summary"] as? Bool == true } ?? [:] }

    /// 429s without Retry-After: the origin's next request waits at least the base, then at least
    /// twice it after a second 429 in a row (the server's log shows the gaps), though the retry
    /// itself was due after 0.1 s; a success (another line of the origin answered between) starts
    /// the row again, and the summary says how long the origin was held.
    func testA429WithoutRetryAfterSpacesTheOriginsNextRequests() throws {
        let lines = [server.url("/flaky/nora?fail=2&code=429&img=tiny.jpg")] + (1...4).map { imageURL("tiny.jpg", "v=b\($0)") }
        let list = try writeList(lines)
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", "-j", "1", "--retry", "2", "--retry-delay", "0.1",
                              "--backoff-base", "1", list.path], timeout: 60)
        assertExit(r, 0)
        XCTAssertEqual(records(r).filter { $0.string("status") == "ok" }.count, 5, r.stderr)
        let log = try server.requestLog().filter { !$0.path.hasPrefix("/__") }.sorted { $0.t < $1.t }
        XCTAssertEqual(log.filter { $0.status == 429 }.count, 2, "\(log.map { ($0.path, $0.status ?? 0) })")
        var strikes = 0, waited = 0.0
        for (index, entry) in log.enumerated() {
            guard entry.status == 429 else {
                if entry.status == 200 { strikes = 0 }
                continue
            }
            strikes += 1
            let next = try XCTUnwrap(log.dropFirst(index + 1).first, "a request after the 429")
            let backoff = Double(1 << (strikes - 1))
            waited += backoff
            XCTAssertGreaterThanOrEqual(next.t - entry.t, backoff, "strike \(strikes): the next request waited the backoff: \(log.map { ($0.path, $0.t - log[0].t) })")
        }
        // After the success, no backoff: the other lines follow one another at once.
        let held = try XCTUnwrap((summary(r)["held_origins"] as? [[String: Any]])?.first, r.stdoutText)
        XCTAssertEqual(held.string("origin"), "http://127.0.0.1:\(server.port)")
        XCTAssertGreaterThanOrEqual(held.double("held_s") ?? 0, waited)
        XCTAssertTrue(r.stderr.contains("http://127.0.0.1:\(server.port) held "), r.stderr)
    }

    /// Two prefetch processes on one cache: the first's 429 without Retry-After holds the origin
    /// for the second too (the hold is shared through the cache directory's `v1/hold/`): the
    /// server's log shows no request from either before the backoff base has elapsed.
    func testA429WithoutRetryAfterHoldsTheOriginForEveryProcessOnTheCache() throws {
        let flags = ["prefetch", "--cache-dir", cacheDir.path, "--no-robots", "-j", "1", "--retry", "2", "--retry-delay", "0.1",
                     "--backoff-base", "2"]
        let first = try launch(flags + [try writeList([server.url("/flaky/shared?fail=1&code=429&img=tiny.jpg")], name: "first.txt").path])
        let holds = cacheDir.appendingPathComponent("v1/hold")
        waitFor("the first process's hold in \(holds.path)") {
            ((try? FileManager.default.contentsOfDirectory(atPath: holds.path)) ?? []).contains { $0.count == 32 }
        }
        let second = try launch(flags + [try writeList((1...2).map { imageURL("tiny.jpg", "v=second\($0)") }, name: "second.txt").path])
        first.waitUntilExit()
        second.waitUntilExit()
        XCTAssertEqual(first.terminationStatus, 0)
        XCTAssertEqual(second.terminationStatus, 0)
        let log = try server.requestLog().filter { !$0.path.hasPrefix("/__") }.sorted { $0.t < $1.t }
        let refusal = try XCTUnwrap(log.first { $0.status == 429 }, "\(log.map { ($0.path, $0.status ?? 0) })")
        let after = log.filter { $0.t > refusal.t }
        XCTAssertEqual(after.count, 3, "the first's retry and the second's two lines: \(log.map { $0.path })")
        XCTAssertEqual(after.filter { $0.path.contains("v=second") }.count, 2)
        for entry in after {
            XCTAssertGreaterThanOrEqual(entry.t - refusal.t, 2, "\(entry.path) waited the origin's backoff: \(log.map { ($0.path, $0.t - refusal.t) })")
        }
    }

    /// Under `--resolve` the run does not reach the origin's own address: its 429 holds this run's
    /// requests (the backoff still spaces them) but leaves no hold for the other processes.
    func testA429UnderResolveLeavesNoHoldForOtherProcesses() throws {
        let list = try writeList(["http://localhost:\(server.port)/flaky/resolved?fail=1&code=429&img=tiny.jpg",
                                  "http://localhost:\(server.port)/img/tiny.jpg?v=resolved"])
        let r = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--json", "-j", "1", "--retry", "1",
                              "--retry-delay", "0.1", "--backoff-base", "0.5", "--resolve", "localhost:\(server.port):127.0.0.1", list.path])
        assertExit(r, 0)
        let log = try server.requestLog().filter { !$0.path.hasPrefix("/__") }.sorted { $0.t < $1.t }
        let refusal = try XCTUnwrap(log.first { $0.status == 429 }, "\(log.map { ($0.path, $0.status ?? 0) })")
        for entry in log where entry.t > refusal.t {
            XCTAssertGreaterThanOrEqual(entry.t - refusal.t, 0.5, "\(entry.path) waited this run's backoff")
        }
        let holds = cacheDir.appendingPathComponent("v1/hold").path
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: holds)) ?? [], [], "no hold for other processes")
    }

    /// A blackhole (the request read, nothing answered) ends at --timeout per attempt; a server
    /// sending 1 byte every 2 s (half of --speed-limit 1) ends at --speed-time, long before its
    /// --timeout: each line fails as a timeout after its two attempts, and the run ends.
    func testABlackholeAndASlowDripOriginEndWithinTheirBoundsAndTheRunEnds() throws {
        let blackhole = try writeList([server.url("/hang?seconds=120")], name: "blackhole.txt")
        let hole = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", "--retry", "1", "--retry-delay", "0.1",
                                 "--timeout", "2", "--speed-time", "120", blackhole.path], timeout: 60)
        assertExit(hole, 1)
        let lost = try XCTUnwrap(records(hole).first, hole.stdoutText)
        XCTAssertEqual(errorCode(lost), "timeout", hole.stdoutText)
        XCTAssertEqual(lost.int("attempts"), 2)
        XCTAssertLessThan(lost.double("ms") ?? .infinity, 20_000, "2 attempts of 2 s and the backoff between, far from the server's 120 s")

        let drip = try writeList([server.url("/drip?every=2&bytes=1000")], name: "drip.txt")
        let slow = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", "--retry", "1", "--retry-delay", "0.1",
                                 "--timeout", "120", "--speed-limit", "1", "--speed-time", "3", drip.path], timeout: 90)
        assertExit(slow, 1)
        let trickled = try XCTUnwrap(records(slow).first, slow.stdoutText)
        XCTAssertEqual(errorCode(trickled), "timeout", slow.stdoutText)
        XCTAssertEqual(trickled.int("attempts"), 2)
        XCTAssertLessThan(trickled.double("ms") ?? .infinity, 40_000, "2 attempts ended by --speed-time, not the 120 s --timeout nor the 2000 s body")
        XCTAssertEqual(try server.requestLog().filter { $0.path.hasPrefix("/drip") }.count, 2)
    }

    /// Nothing progresses (two blackholes, no transfer bound reached): after --stall-timeout the
    /// watchdog stops the run as an interrupt does; the summary says so, the lines not delivered
    /// are in --save-remaining, and the exit code is 8.
    func testAStallStopsTheRunWithExit8AndSavesWhatIsLeft() throws {
        let holes = (1...2).map { server.url("/hang?seconds=120&v=s\($0)") }
        let lines = [imageURL("tiny.jpg")] + holes
        let list = try writeList(lines)
        let saved = file("remaining.txt")
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", "--timeout", "120", "--speed-time", "120",
                              "--stall-timeout", "2s", "--save-remaining", saved.path, list.path], timeout: 60)
        assertExit(r, 8)
        XCTAssertEqual(records(r).filter { $0.string("status") == "ok" }.map { $0.string("source") }, [lines[0]])
        XCTAssertEqual(summary(r)["stalled"] as? Bool, true, r.stdoutText)
        XCTAssertTrue(r.stderr.contains("prefetch stalled (no line completed and no byte arrived for 2"), r.stderr)
        XCTAssertEqual(try String(contentsOf: saved, encoding: .utf8).split(separator: "\n").map(String.init), holes)
    }
}
