import Foundation
import XCTest

/// Retries, alternative sources and low-data mode, seen from the server's request log.
final class RecoveryTests: E2ETestCase {
    func testRetriesA503UntilItSucceeds() throws {
        let path = "/flaky/a?fail=2&code=503&img=photo.jpg"
        let r = try get([server.url(path), "--retry", "3", "--retry-delay", "0.1", "-s", "300", "--json", "-o", file("o.jpg").path])
        assertExit(r, 0)
        let record = singleRecord(r)
        XCTAssertEqual(record.int("attempts"), 3, "\(record)")
        XCTAssertEqual(try server.requestCount(path), 3)
        assertImageFile(file("o.jpg"), .jpeg, width: 300, height: 200)
    }

    func testRetryZeroGivesUpAtOnce() throws {
        let path = "/flaky/b?fail=1&code=503"
        let r = try get([server.url(path), "--retry", "0", "--json", "-o", file("o.jpg").path])
        assertExit(r, 5)
        assertFailureRecord(r, code: "http_status")
        XCTAssertEqual(try server.requestCount(path), 1)
    }

    func testRetriesAreBounded() throws {
        let path = "/flaky/c?fail=10&code=500"
        let r = try get([server.url(path), "--retry", "2", "--retry-delay", "0.1", "-o", file("o.jpg").path])
        assertExit(r, 5)
        XCTAssertEqual(try server.requestCount(path), 3, "1 attempt + 2 retries")
    }

    func testRetries429HonouringRetryAfter() throws {
        let path = "/flaky/d?fail=1&code=429&retry_after=2&img=tiny.jpg"
        let r = try get([server.url(path), "--retry", "1", "--retry-delay", "0.1", "-o", file("o.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(try server.requestCount(path), 2)
        XCTAssertGreaterThanOrEqual(r.elapsed, 1.8, "Retry-After: 2 was not honoured")
    }

    func testAlternativeSourceAfterFailure() throws {
        let primary = server.url("/status/404")
        let alt = imageURL("tiny.jpg")
        let r = try get([primary, "--alt", alt, "--json", "-o", file("o.jpg").path])
        assertExit(r, 0)
        let record = singleRecord(r)
        XCTAssertEqual(record.string("status"), "ok", "\(record)")
        XCTAssertEqual(record.string("original_source"), primary, "\(record)")
        XCTAssertEqual(record.string("source"), alt, "\(record)")
        assertImageFile(file("o.jpg"), .jpeg, width: 100, height: 67)
    }

    func testLowDataModeLoadsTheLowDataSource() throws {
        let original = imageURL("photo.jpg")
        let lowData = imageURL("tiny.jpg")
        let r = try get([original, "--low-data", "--low-data-source", lowData, "--json", "-o", file("o.jpg").path])
        assertExit(r, 0)
        let record = singleRecord(r)
        XCTAssertEqual(record["low_data"] as? Bool, true, "\(record)")
        XCTAssertEqual(record.string("source"), lowData, "\(record)")
        XCTAssertEqual(record.string("original_source"), original, "\(record)")
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 0, "the constrained request sends no byte")
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg")), 1)
        assertImageFile(file("o.jpg"), .jpeg, width: 100, height: 67)
    }

    func testLowDataModeWithoutLowDataSourceChangesNothing() throws {
        let r = try get([imageURL("photo.jpg"), "--low-data", "-s", "300", "--json", "-o", file("o.jpg").path])
        assertExit(r, 0)
        let record = singleRecord(r)
        XCTAssertEqual(record["low_data"] as? Bool, false, "\(record)")
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 1)
    }

    func testLowDataEnvironmentVariable() throws {
        let original = imageURL("photo.jpg")
        let lowData = imageURL("tiny.jpg")
        let r = try get([original, "--low-data-source", lowData, "--json", "-o", file("o.jpg").path],
                        env: ["IMGFETCH_LOW_DATA": "1"])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r)["low_data"] as? Bool, true)
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 0)
    }

    func testLowDataModeUsesCachedOriginal() throws {
        let original = imageURL("photo.jpg")
        let lowData = imageURL("tiny.jpg")
        assertExit(try get([original, "-s", "300", "-o", file("a.jpg").path]), 0)
        let r = try get([original, "-s", "300", "--low-data", "--low-data-source", lowData, "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        let record = singleRecord(r)
        XCTAssertEqual(record.string("cache"), "hit", "\(record)")
        XCTAssertEqual(record["low_data"] as? Bool, false, "\(record)")
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg")), 0, "a cache hit does not trigger the fallback")
        assertImageFile(file("b.jpg"), .jpeg, width: 300, height: 200)
    }
}
