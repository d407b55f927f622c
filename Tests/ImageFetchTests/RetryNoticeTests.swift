import XCTest
@testable import ImageFetch

/// Retry notices are events the caller reads (`PipelineActivity.takeNotices`) and values of the
/// result (`retries`): one per retry decided, with the source, the cause, the wait and the retries
/// left as curl counts them; none for a failure that is not retried.
final class RetryNoticeTests: XCTestCase {
    let a = Source.http("https://example.com/a.jpg")

    func request(retries: Int) -> ImageRequest {
        var options = FetchOptions()
        options.retry = RetryPolicy(maxRetries: retries, baseDelay: 1, maxDelay: 30)
        return ImageRequest(source: a, processing: .original, options: options)
    }

    func testEachRetryIsPostedAndKeptInTheResult() async throws {
        let f = PipelineFixture()
        f.loader.script(a, .fail(.httpStatus(503, retryAfter: nil)), .fail(.timeout("timed out (slow)")), .ok(Array("image".utf8)))
        let result = try await f.retrieve(request(retries: 3))
        let notices = await f.pipeline.activity.takeNotices()
        XCTAssertEqual(notices, result.retries, "the events and the result's record agree")
        XCTAssertEqual(notices.map(\.retriesLeft), [3, 2])
        XCTAssertEqual(notices.map(\.cause), [.httpStatus(503, retryAfter: nil), .timeout("timed out (slow)")])
        XCTAssertEqual(notices.map(\.wait), f.sleeper.recorded, "the wait announced is the wait made")
        XCTAssertTrue(notices[0].message.hasPrefix("https://example.com/a.jpg: HTTP 503; will retry in "), notices[0].message)
        XCTAssertTrue(notices[0].message.hasSuffix(" s, 3 retries left"), notices[0].message)
        XCTAssertTrue(notices[1].message.hasSuffix(", 2 retries left"), notices[1].message)
        let taken = await f.pipeline.activity.takeNotices()
        XCTAssertEqual(taken, [], "taken once")
    }

    func testAFailureKeepsItsRetriesAndTheLastOneSaysOneLeft() async throws {
        let f = PipelineFixture()
        f.loader.script(a, .fail(.httpStatus(500, retryAfter: nil)), .fail(.httpStatus(500, retryAfter: nil)))
        let failure = try await f.fail(request(retries: 1))
        XCTAssertEqual(failure.retries.count, 1)
        XCTAssertEqual(failure.retries.first?.message.hasSuffix(", 1 retry left"), true, "\(failure.retries)")
    }

    func testNoNoticeWithoutARetry() async throws {
        let f = PipelineFixture()
        f.loader.script(a, .fail(.httpStatus(404, retryAfter: nil)))
        let failure = try await f.fail(request(retries: 3))
        XCTAssertEqual(failure.retries, [])
        let notices = await f.pipeline.activity.takeNotices()
        XCTAssertEqual(notices, [])
    }
}

/// `nextNotices` waits for a post (no timer) and never hangs a cancelled reader.
final class PipelineActivityTests: XCTestCase {
    let notice = RetryNotice(source: "https://example.com/a.jpg", cause: .httpStatus(503, retryAfter: nil), wait: 1, retriesLeft: 2)

    func testAWaitingReaderGetsTheNextPost() async {
        let activity = PipelineActivity()
        let reader = Task { await activity.nextNotices() }
        try? await Task.sleep(nanoseconds: 20_000_000)
        await activity.post(notice)
        let got = await reader.value
        XCTAssertEqual(got, [notice])
        let again = await activity.takeNotices()
        XCTAssertEqual(again, [], "taken once")
    }

    func testACancelledReaderReturns() async {
        let activity = PipelineActivity()
        for delay in [0, 1_000_000, 20_000_000] as [UInt64] {
            let reader = Task { await activity.nextNotices() }
            if delay > 0 { try? await Task.sleep(nanoseconds: delay) }
            reader.cancel()
            let got = await reader.value
            XCTAssertEqual(got, [])
        }
        await activity.post(notice)
        let later = await activity.nextNotices()
        XCTAssertEqual(later, [notice], "a post before the wait is returned at once")
    }
}
