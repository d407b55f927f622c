import Foundation
import XCTest

/// --limit-rate caps the download speed; --speed-limit/--speed-time give up on a stalled transfer
/// with a retryable timeout, as curl.
final class SlowLinkTests: E2ETestCase {
    func testLimitRateSlowsTheDownload() throws {
        // photo.jpg (336605 bytes) in 4000-byte pieces 5 ms apart: about 0.5 s unlimited; at 100 KiB/s
        // over 2 s. (libcurl 7.88 paces reads, so a body that lands in the socket buffer in one burst,
        // as over loopback without trickle, is not slowed: the server paces it here.)
        let fast = try get([imageURL("photo.jpg", "trickle=5"), "-o", file("b.jpg").path])
        assertExit(fast, 0)
        let r = try get([imageURL("photo.jpg", "trickle=5&v=2"), "-o", file("a.jpg").path, "--limit-rate", "100K"])
        assertExit(r, 0)
        assertImageFile(file("a.jpg"), .jpeg)
        // The limit bounds the time from below whatever the load (336605 bytes at 100 KiB/s: 3.3 s,
        // less libcurl's first burst); the unlimited time only grows with the load, so it is compared
        // without a factor (it was "limited > 2 x unlimited", which a loaded machine broke).
        XCTAssertGreaterThan(r.elapsed, 1.5, "--limit-rate 100K: \(r.elapsed) s")
        XCTAssertLessThan(fast.elapsed, r.elapsed, "unlimited \(fast.elapsed) s, limited \(r.elapsed) s")
    }

    func testSpeedLimitGivesUpWithARetryableTimeout() throws {
        // 4000 bytes every 0.7 s is about 5.7 KB/s: below 100000 B/s for 1 s.
        let url = imageURL("photo.jpg", "trickle=700")
        let r = try get([url, "--json", "-o", file("a.jpg").path, "--speed-limit", "100000", "--speed-time", "1",
                         "--retry", "1", "--retry-delay", "0"], timeout: 20)
        assertExit(r, 6)
        assertFailureRecord(r, code: "timeout")
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg", "trickle=700")), 2, "a timeout is retried")
        XCTAssertLessThan(r.elapsed, 10, "gave up early, not after the whole body (about 60 s)")
    }

    func testSpeedOptionsAreValidated() throws {
        for args in [["--limit-rate", "0"], ["--speed-limit", "0"], ["--speed-time", "x"]] {
            assertExit(try get([imageURL("tiny.jpg")] + args), 2)
        }
    }
}
