import Foundation
import XCTest

/// `Retry-After` from a hostile or confused server: a wait beyond the retry budget fails at once,
/// naming the wait; `Retry-After: 0` does not turn `--retry N` into N back-to-back requests.
final class RetryAfterTests: E2ETestCase {
    func testAWaitBeyondTheDefaultRetryBudgetFailsAtOnceNamingIt() throws {
        let path = "/flaky/far?fail=5&code=503&retry_after=999999999&img=tiny.jpg"
        let r = try get([server.url(path), "--retry", "1", "--json", "-o", file("o.jpg").path], timeout: 20)
        assertExit(r, 5)
        XCTAssertLessThan(r.elapsed, 5, "no silent hour of sleep")
        assertFailureRecord(r, code: "http_status")
        let message = ((singleRecord(r)["error"] as? [String: Any])?["message"] as? String) ?? ""
        XCTAssertTrue(message.contains("999999999 s") && message.contains("300 s"), "names the wait and the default limit: \(message)")
        XCTAssertTrue(r.stderr.contains("999999999 s"), "the stderr line names the wait:\n\(r.stderr)")
        XCTAssertEqual(try server.requestCount(path), 1, "no retry")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("o.jpg").path))
    }

    func testRetryMaxTimeSetsTheBudget() throws {
        let path = "/flaky/budget?fail=1&code=429&retry_after=3&img=tiny.jpg"
        let refused = try get([server.url(path), "--retry", "1", "--retry-max-time", "2", "-o", file("o.jpg").path], timeout: 20)
        assertExit(refused, 5)
        XCTAssertLessThan(refused.elapsed, 2.5)
        XCTAssertTrue(refused.stderr.contains("3 s") && refused.stderr.contains("2 s"), "\(refused.stderr)")

        try server.reset()
        let waited = try get([server.url(path), "--retry", "1", "--retry-max-time", "10", "--retry-delay", "0.1", "-o", file("o.jpg").path], timeout: 20)
        assertExit(waited, 0)
        XCTAssertGreaterThanOrEqual(waited.elapsed, 2.8, "a wait within the budget is honoured")
        XCTAssertEqual(try server.requestCount(path), 2)
    }

    func testRetryAfterZeroStillSpacesAttemptsByTheRetryDelay() throws {
        let path = "/flaky/zero?fail=4&code=503&retry_after=0&img=tiny.jpg"
        let r = try get([server.url(path), "--retry", "100", "--retry-delay", "0.3", "--json", "-o", file("o.jpg").path], timeout: 20)
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r).int("attempts"), 5)
        let times = try server.requests("/flaky/zero?fail=4&code=503&retry_after=0&img=tiny.jpg").map(\.t).sorted()
        XCTAssertEqual(times.count, 5)
        for (earlier, later) in zip(times, times.dropFirst()) {
            XCTAssertGreaterThanOrEqual(later - earlier, 0.28, "attempts --retry-delay apart: \(times.map { String(format: "%.3f", $0 - times[0]) })")
        }
    }
}
