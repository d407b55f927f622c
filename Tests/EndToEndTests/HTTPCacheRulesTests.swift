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
        assertExit(r, 1)
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
