import Foundation
import XCTest

/// RFC 9111 rules seen from `get`, beyond the conformance scenarios (Tests/Conformance): what a 304
/// leaves of the stored rules, what is served when the origin cannot be reached, and
/// stale-while-revalidate.
final class HTTPCacheRulesTests: E2ETestCase {
    func testA304WithoutCacheControlKeepsNoCache() throws {
        let query = "cc=no-cache&bare304=1"
        let url = imageURL("tiny.jpg", query)
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        for round in 1...2 {
            let r = try get([url, "--json", "-o", file("b.jpg").path])
            assertExit(r, 0)
            XCTAssertEqual(singleRecord(r).string("cache"), "revalidated", "round \(round): no-cache survives a bare 304")
        }
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg", query)), 3)
    }

    func testAStaleMustRevalidateEntryIsNotServedWhenTheOriginIsUnreachableButOfflineServesItWithAWarning() throws {
        let origin = try TestServer()
        let url = origin.url("/img/tiny.jpg?cc=max-age%3D0%2C%20must-revalidate")
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        origin.stop()
        let r = try get([url, "--json", "-o", file("b.jpg").path])
        assertExit(r, 6)
        XCTAssertEqual(errorCode(singleRecord(r)), "unreachable")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("b.jpg").path))

        let offline = try get([url, "--offline", "--json", "-o", file("c.jpg").path])
        assertExit(offline, 0)
        let record = singleRecord(offline)
        XCTAssertEqual(record.string("cache"), "stale")
        XCTAssertEqual(record.string("stale_reason"), "offline")
        XCTAssertTrue(offline.stderr.contains("required revalidation"), offline.stderr)
        assertImageFile(file("c.jpg"), .jpeg, width: 100, height: 67)
    }

    func testAPlainStaleEntryIsStillServedWhenTheOriginIsUnreachable() throws {
        let origin = try TestServer()
        let url = origin.url("/img/tiny.jpg?cc=max-age%3D0")
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        origin.stop()
        let r = try get([url, "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r).string("cache"), "stale")
        XCTAssertEqual(singleRecord(r).string("stale_reason"), "network unreachable")
    }

    func testCacheInfoShowsTheFreshnessDecision() throws {
        let url = imageURL("tiny.jpg", "cc=max-age%3D0%2C%20must-revalidate")
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        let r = try imgfetch(["cache", "info", url, "--json", "--cache-dir", cacheDir.path])
        assertExit(r, 0)
        XCTAssertFalse(r.json.isEmpty)
        for record in r.json {
            let freshness = try XCTUnwrap(record["freshness"] as? [String: Any], "\(record)")
            XCTAssertEqual(freshness["fresh"] as? Bool, false)
            XCTAssertEqual(freshness["lifetime"] as? Int, 0)
            XCTAssertEqual(freshness["status"] as? Int, 200)
            let reason = try XCTUnwrap(freshness["reason"] as? String)
            XCTAssertTrue(reason.hasPrefix("max-age=0; stale"), reason)
            XCTAssertTrue(reason.contains("must-revalidate"), reason)
            XCTAssertTrue((freshness["headers"] as? [String])?.contains("cache-control: max-age=0, must-revalidate") ?? false)
        }
        let text = try imgfetch(["cache", "info", url, "--cache-dir", cacheDir.path])
        XCTAssertTrue(text.stdoutText.contains("freshness:"), text.stdoutText)
        XCTAssertTrue(text.stdoutText.contains("stored:         cache-control: max-age=0, must-revalidate"), text.stdoutText)
    }

    func testPrefetchServesWithinStaleWhileRevalidateAndRevalidatesInTheRun() throws {
        let query = "cc=max-age%3D2%2C%20stale-while-revalidate%3D60"
        let list = try writeList([imageURL("tiny.jpg", query), imageURL("small.gif", query)])
        let prefetch = { () throws -> RunResult in
            try self.imgfetch(["prefetch", "--cache-dir", self.cacheDir.path, "--json", list.path])
        }
        assertExit(try prefetch(), 0)
        Thread.sleep(forTimeInterval: 2.5)
        let r = try prefetch()
        assertExit(r, 0)
        let records = r.json.filter { $0["summary"] as? Bool != true }
        XCTAssertEqual(records.compactMap { $0.string("cache") }, ["stale", "stale"], "\(r)")
        XCTAssertEqual(Set(records.compactMap { $0.string("stale_reason") }), ["stale-while-revalidate"])
        for name in ["tiny.jpg", "small.gif"] {
            let log = try server.requests(imagePath(name, query))
            XCTAssertEqual(log.count, 2, "\(name): revalidated during the run")
            XCTAssertNotNil(log.last?.headers["if-none-match"], "\(name): the revalidation is conditional")
        }
    }

    func testStaleWhileRevalidateServesAtOnceThenRevalidates() throws {
        let query = "cc=max-age%3D3%2C%20stale-while-revalidate%3D60"
        let url = imageURL("tiny.jpg", query)
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        Thread.sleep(forTimeInterval: 3.3)
        let r = try get([url, "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r).string("cache"), "stale")
        XCTAssertEqual(singleRecord(r).string("stale_reason"), "stale-while-revalidate")
        assertImageFile(file("b.jpg"), .jpeg, width: 100, height: 67)
        let log = try server.requests(imagePath("tiny.jpg", query))
        XCTAssertEqual(log.count, 2, "revalidated once after the stale answer")
        XCTAssertNotNil(log.last?.headers["if-none-match"], "the revalidation is conditional")
        let again = try get([url, "--json", "-o", file("c.jpg").path])
        XCTAssertEqual(singleRecord(again).string("cache"), "hit", "the entry was refreshed by the revalidation")
    }
}

/// Redirects are followed by imgfetch one hop at a time; each hop is cached by its own rules.
final class RedirectCacheTests: E2ETestCase {
    private func redirect(_ code: Int, cc: String? = nil, to target: String) -> (url: String, path: String) {
        var query = "to=\(target)&code=\(code)"
        if let cc { query += "&cc=\(cc)" }
        return (server.url("/redirect?\(query)"), "/redirect?\(query)")
    }

    func testA302WithoutFreshnessIsAskedAgainButTheImageBehindItIsAHit() throws {
        let hop = redirect(302, to: "/img/tiny.jpg?cc=max-age%3D600")
        for name in ["a.jpg", "b.jpg"] { assertExit(try get([hop.url, "-o", file(name).path]), 0) }
        XCTAssertEqual(try server.requestCount(hop.path), 2, "a 302 without freshness is not reused")
        XCTAssertEqual(try server.requestCount("/img/tiny.jpg?cc=max-age=600"), 1, "the image keeps its own fresh entry")
        assertImageFile(file("b.jpg"), .jpeg, width: 100, height: 67)
    }

    func testA302WithMaxAgeAndA301AreReused() throws {
        for hop in [redirect(302, cc: "max-age%3D600", to: "/img/tiny.jpg"), redirect(301, to: "/img/tiny.jpg?v=301"),
                    redirect(308, to: "/img/tiny.jpg?v=308")] {
            assertExit(try get([hop.url, "-o", file("a.jpg").path]), 0)
            let r = try get([hop.url, "--json", "-o", file("b.jpg").path])
            assertExit(r, 0)
            XCTAssertEqual(try server.requestCount(hop.path), 1, "\(hop.path) reused")
            XCTAssertEqual(singleRecord(r).string("cache"), "hit")
            XCTAssertEqual(singleRecord(r).string("source"), hop.url, "the record names the source asked for")
        }
    }

    func testA307IsNotReusedWithoutFreshnessAndAChangedTargetIsSeen() throws {
        let hop = redirect(307, to: "/img/tiny.jpg")
        assertExit(try get([hop.url, "-o", file("a.jpg").path]), 0)
        let moved = redirect(307, to: "/img/small.gif")
        XCTAssertNotEqual(hop.url, moved.url)
        assertExit(try get([hop.url, "-o", file("b.jpg").path]), 0)
        XCTAssertEqual(try server.requestCount(hop.path), 2)
    }

    func testRedirectsAreBoundedAndEveryHopIsSeen() throws {
        var target = "/img/tiny.jpg"
        for _ in 0..<6 { target = "/redirect?to=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        let r = try get([server.url(target), "--json", "-o", file("a.jpg").path])
        assertExit(r, 1)
        XCTAssertEqual(errorCode(singleRecord(r)), "redirect_refused")
        XCTAssertEqual(try server.requestCount("/img/tiny.jpg"), 0)
        XCTAssertEqual(try server.totalRequests(), 6, "five redirects followed, the sixth refused")
    }

    func testOfflineFollowsAStoredRedirect() throws {
        let hop = redirect(301, to: "/img/tiny.jpg")
        assertExit(try get([hop.url, "-o", file("a.jpg").path]), 0)
        let total = try server.totalRequests()
        let r = try get([hop.url, "--offline", "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(try server.totalRequests(), total)
        assertImageFile(file("b.jpg"), .jpeg, width: 100, height: 67)
    }
}
