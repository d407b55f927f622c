import Foundation
import XCTest

/// Failures remembered like responses (issue 43): a 404 or 410 with neither explicit freshness nor
/// a Last-Modified is stored for `--failure-ttl` (RFC 9111 §4.2.2's heuristic), so a rerun of a
/// finished list asks nothing for it; a redirect is stored only by its own rules (a 302 is asked
/// again, the 404 behind it is not); `--retry-failed` asks again; never past `no-store`.
final class FailureMemoryTests: E2ETestCase {
    private func prefetch(_ list: URL, _ extra: [String] = []) throws -> RunResult {
        try imgfetch(["prefetch", "--no-progress", "--cache-dir", cacheDir.path, "--json", list.path] + extra)
    }

    func testARerunOfAListAsksNothingFor404sAndOnceForARedirectToOne() throws {
        let gone = (0..<3).map { "/status/404?v=\($0)" } + ["/status/410?v=g"]
        let behind = server.url("/status/404?v=behind")
        let redirect = "/redirect?to=" + (behind.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? behind)
        let list = try writeList(gone.map { server.url($0) } + [server.url(redirect), imageURL("tiny.jpg")])
        assertExit(try prefetch(list), 1)
        let before = try server.totalRequests()
        let rerun = try prefetch(list)
        assertExit(rerun, 1)
        for path in gone { XCTAssertEqual(try server.requestCount(path), 1, "\(path) was asked for again") }
        XCTAssertEqual(try server.requestCount("/status/404?v=behind"), 1, "the 404 behind the redirect was remembered")
        XCTAssertEqual(try server.requestCount(redirect), 2, "the 302 is asked for again (not storable)")
        XCTAssertEqual(try server.totalRequests() - before, 1, "the rerun made one request, the 302's")
        let hits = rerun.json.filter { $0["status"] as? String == "failed" }.map { $0["cache"] as? String }
        XCTAssertEqual(hits.filter { $0 == "hit" }.count, 5, "a stored failure's record says cache: hit: \(rerun.json)")
        // --retry-failed asks again.
        assertExit(try prefetch(list, ["--retry-failed"]), 1)
        for path in gone { XCTAssertEqual(try server.requestCount(path), 2, path) }
    }

    func testAGetOfARemembered404ExitsAsTheFirstDid() throws {
        let url = server.url("/status/404?v=get")
        assertExit(try get([url, "-o", file("a.jpg").path]), 5)
        let again = try get([url, "-o", file("a.jpg").path, "--json"])
        assertExit(again, 5)
        XCTAssertEqual(singleRecord(again)["cache"] as? String, "hit")
        XCTAssertEqual(try server.requestCount("/status/404?v=get"), 1)
        // --failure-ttl 0 remembers none.
        let url0 = server.url("/status/404?v=ttl0")
        assertExit(try get([url0, "--failure-ttl", "0", "-o", file("a.jpg").path]), 5)
        assertExit(try get([url0, "--failure-ttl", "0", "-o", file("a.jpg").path]), 5)
        XCTAssertEqual(try server.requestCount("/status/404?v=ttl0"), 2)
    }

    func testAFailureThatMustNotBeStoredIsAskedAgain() throws {
        // Its own rules win over --failure-ttl.
        for cc in ["no-store", "no-cache", "must-revalidate"] {
            let path = "/status/404?cc=\(cc)"
            assertExit(try get([server.url(path), "-o", file("a.jpg").path]), 5)
            assertExit(try get([server.url(path), "-o", file("a.jpg").path]), 5)
            XCTAssertEqual(try server.requestCount(path), 2, cc)
        }
    }
}
