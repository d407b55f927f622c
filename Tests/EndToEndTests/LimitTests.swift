import Foundation
import XCTest

/// Safety limits: pixel bombs, download size, per-request timeout.
final class LimitTests: E2ETestCase {
    func testPixelBombIsRefusedWithoutDecoding() throws {
        let url = imageURL("bomb.png")  // 30000x30000 grey PNG, 938 KB
        let r = try get([url, "-s", "100", "--json", "-o", file("o.png").path], timeout: 20)
        assertExit(r, 7)
        assertFailureRecord(r, code: "too_large")
        XCTAssertLessThan(r.elapsed, 5, "a refused bomb is not decoded (took \(r.elapsed) s)")
        XCTAssertEqual(try server.requestCount(imagePath("bomb.png")), 1, "a limit refusal is not retried")
    }

    func testPixelBombPlainRunNamesTheSource() throws {
        let url = imageURL("bomb.png")
        let r = try get([url, "-o", file("o.png").path], timeout: 20)
        assertExit(r, 7)
        assertOneErrorLine(r, containing: url)
        XCTAssertLessThan(r.elapsed, 5)
    }

    func testLocalPixelBombIsRefused() throws {
        let r = try get([E2EPaths.fixture("bomb.png").path, "--json", "-o", file("o.png").path], timeout: 20)
        assertExit(r, 7)
        assertFailureRecord(r, code: "too_large")
        XCTAssertLessThan(r.elapsed, 5)
    }

    func testMaxPixelsIsApplied() throws {
        let r = try get([imageURL("photo.jpg"), "--max-pixels", "10000", "--json", "-o", file("o.jpg").path])
        assertExit(r, 7)
        assertFailureRecord(r, code: "too_large")
    }

    func testMaxBytesWithContentLength() throws {
        let r = try get([imageURL("photo.jpg"), "--max-bytes", "10K", "--json", "-o", file("o.jpg").path])
        assertExit(r, 7)
        assertFailureRecord(r, code: "too_large")
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 1, "a limit refusal is not retried")
    }

    func testMaxBytesWithChunkedResponse() throws {
        let query = "chunked=1"
        let r = try get([imageURL("photo.jpg", query), "--max-bytes", "10K", "--json", "-o", file("o.jpg").path])
        assertExit(r, 7)
        assertFailureRecord(r, code: "too_large")
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg", query)), 1)
    }

    func testMaxBytesAboveSizeSucceeds() throws {
        let r = try get([imageURL("photo.jpg", "chunked=1"), "--max-bytes", "1M", "-s", "300", "-o", file("o.jpg").path])
        assertExit(r, 0)
        assertImageFile(file("o.jpg"), .jpeg, width: 300, height: 200)
    }

    func testChunkedDownloadWorks() throws {
        let r = try get([imageURL("photo.jpg", "chunked=1")])
        assertExit(r, 0)
        assertImage(r.stdout, .jpeg, width: 1200, height: 800)
    }

    func testTimeout() throws {
        // --retry 0: a timeout is retryable, and this test is about one request's timeout.
        let url = server.url("/hang?seconds=10")
        let r = try get([url, "--timeout", "1", "--retry", "0", "--json", "-o", file("o.jpg").path], timeout: 20)
        assertExit(r, 6)
        assertFailureRecord(r, code: "timeout")
        XCTAssertLessThan(r.elapsed, 8, "--timeout 1 took \(r.elapsed) s")
    }

    func testTimeoutPlainRunNamesTheSource() throws {
        let url = server.url("/hang?seconds=10")
        let r = try get([url, "--timeout", "1", "--retry", "0", "-o", file("o.jpg").path], timeout: 20)
        assertExit(r, 6)
        assertOneErrorLine(r, containing: url)
        XCTAssertLessThan(r.elapsed, 8)
    }
}
