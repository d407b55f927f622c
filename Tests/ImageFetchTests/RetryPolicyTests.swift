import XCTest
@testable import ImageFetch

final class RetryPolicyTests: XCTestCase {
    let policy = RetryPolicy(maxRetries: 5, baseDelay: 1, maxDelay: 30)

    private func delay(_ p: RetryPolicy, _ retry: Int, _ error: FetchError, elapsed: Double = 0, random: Double = 0) -> Double? {
        p.delay(beforeRetry: retry, after: error, elapsed: elapsed, random: { random })
    }

    func testNonRetryableErrorsAreNotRetried() {
        let errors: [FetchError] = [.httpStatus(404, retryAfter: nil), .httpStatus(400, retryAfter: nil),
                                    .httpStatus(403, retryAfter: 5), .invalidImage("x"), .constrained, .tooLarge("x"),
                                    .invalidSource("x"), .tls("x"), .redirectRefused("x"), .fileError("x"),
                                    .notCached, .cancelled, .unsupportedFormat("x")]
        for error in errors {
            XCTAssertFalse(error.isRetryable, "\(error)")
            XCTAssertNil(delay(policy, 1, error), "\(error)")
        }
    }

    func testRetryableErrors() {
        let errors: [FetchError] = [.httpStatus(503, retryAfter: nil), .httpStatus(500, retryAfter: nil),
                                    .httpStatus(599, retryAfter: nil), .httpStatus(429, retryAfter: nil),
                                    .httpStatus(408, retryAfter: nil), .timeout("t"), .connection("reset"), .unreachable("dns")]
        for error in errors {
            XCTAssertTrue(error.isRetryable, "\(error)")
            XCTAssertNotNil(delay(policy, 1, error), "\(error)")
        }
        XCTAssertFalse(FetchError.httpStatus(600, retryAfter: nil).isRetryable)
        XCTAssertFalse(FetchError.httpStatus(499, retryAfter: nil).isRetryable)
    }

    func testMaxRetriesIsRespected() {
        let p = RetryPolicy(maxRetries: 2)
        XCTAssertNotNil(delay(p, 1, .timeout("t")))
        XCTAssertNotNil(delay(p, 2, .timeout("t")))
        XCTAssertNil(delay(p, 3, .timeout("t")))
        XCTAssertNil(delay(RetryPolicy(), 1, .timeout("t")), "the default is no retries")
    }

    func testExponentialGrowthWithJitterBounds() {
        // random 0 → half of the exponential step; random → 1 → the whole step.
        for retry in 1...4 {
            let step = Double(1 << (retry - 1))
            XCTAssertEqual(delay(policy, retry, .connection("c"), random: 0)!, step / 2, accuracy: 1e-9)
            XCTAssertEqual(delay(policy, retry, .connection("c"), random: 0.999)!, step / 2 + step / 2 * 0.999, accuracy: 1e-9)
        }
        let p = RetryPolicy(maxRetries: 3, baseDelay: 0.25)
        XCTAssertEqual(delay(p, 1, .timeout("t"), random: 0)!, 0.125, accuracy: 1e-9)
        XCTAssertEqual(delay(p, 3, .timeout("t"), random: 0)!, 0.5, accuracy: 1e-9)
    }

    func testDelayIsCappedByMaxDelay() {
        let p = RetryPolicy(maxRetries: 100, baseDelay: 1, maxDelay: 10)
        XCTAssertEqual(delay(p, 5, .timeout("t"), random: 0.999)!, 5 + 5 * 0.999, accuracy: 1e-9) // 16 capped to 10
        for retry in [5, 10, 40, 64, 100] {
            let d = delay(p, retry, .timeout("t"), random: 0.999)!
            XCTAssertLessThanOrEqual(d, 10, "retry \(retry)")
            XCTAssertGreaterThanOrEqual(delay(p, retry, .timeout("t"), random: 0)!, 5, "retry \(retry)")
        }
    }

    func testRetryAfterIsUsedAsIs() {
        XCTAssertEqual(delay(policy, 1, .httpStatus(503, retryAfter: 7), random: 0.5), 7)
        XCTAssertEqual(delay(policy, 3, .httpStatus(429, retryAfter: 2.5), random: 0), 2.5)
        // Not capped by maxDelay...
        XCTAssertEqual(delay(RetryPolicy(maxRetries: 1, maxDelay: 3), 1, .httpStatus(503, retryAfter: 120)), 120)
        // ...but by maxTime.
        XCTAssertNil(delay(RetryPolicy(maxRetries: 1, maxTime: 60), 1, .httpStatus(503, retryAfter: 120)))
        XCTAssertEqual(delay(policy, 1, .httpStatus(503, retryAfter: 0)), 1, "never sooner than the base delay")
    }

    func testMaxTimeStopsRetries() {
        let p = RetryPolicy(maxRetries: 10, baseDelay: 4, maxTime: 10)
        XCTAssertEqual(delay(p, 1, .timeout("t"), elapsed: 0, random: 0), 2) // ends at 2 s
        XCTAssertEqual(delay(p, 1, .timeout("t"), elapsed: 8, random: 0), 2) // ends at exactly 10 s
        XCTAssertNil(delay(p, 1, .timeout("t"), elapsed: 8.5, random: 0)) // would end at 10.5 s
        XCTAssertNil(delay(p, 2, .timeout("t"), elapsed: 7, random: 0.999)) // 7 + ~8
        XCTAssertNil(delay(p, 1, .timeout("t"), elapsed: 11, random: 0))
    }

    func testErrorCodes() {
        let table: [(FetchError, String)] = [
            (.invalidSource("x"), "invalid_source"), (.constrained, "constrained"),
            (.httpStatus(404, retryAfter: nil), "http_status"), (.timeout("x"), "timeout"),
            (.connection("x"), "connection"), (.unreachable("x"), "unreachable"),
            (.redirectRefused("x"), "redirect_refused"), (.tls("x"), "tls"), (.tooLarge("x"), "too_large"),
            (.invalidImage("x"), "invalid_image"), (.unsupportedFormat("x"), "unsupported_format"),
            (.fileError("x"), "file_error"), (.notCached, "not_cached"), (.cacheUnavailable("x"), "cache_unavailable"),
            (.dependencyMissing("x"), "dependency_missing"), (.cancelled, "cancelled"), (.sourcesExhausted([]), "sources_exhausted"),
        ]
        for (error, code) in table { XCTAssertEqual(error.code, code) }
        XCTAssertEqual(Set(table.map(\.1)).count, table.count, "codes are distinct")
    }

    func testMessagesAndNotCachedAggregation() {
        XCTAssertEqual(FetchError.httpStatus(503, retryAfter: nil).message, "HTTP 503")
        let all = FetchError.sourcesExhausted([SourceFailure(source: "a", error: .notCached, attempts: 0),
                                               SourceFailure(source: "b", error: .notCached, attempts: 0)])
        XCTAssertTrue(all.isNotCached)
        XCTAssertEqual(all.message, "all 2 sources failed: a: not cached, and the network may not be used; b: not cached, and the network may not be used")
        let mixed = FetchError.sourcesExhausted([SourceFailure(source: "a", error: .notCached, attempts: 0),
                                                 SourceFailure(source: "b", error: .timeout("t"), attempts: 1)])
        XCTAssertFalse(mixed.isNotCached)
        XCTAssertFalse(FetchError.sourcesExhausted([]).isNotCached)
        XCTAssertTrue(FetchError.unreachable("x").isNetworkUnreachable)
        XCTAssertFalse(FetchError.timeout("x").isNetworkUnreachable)
    }
}

/// The retry budget (`--retry-max-time`, 300 s by default) and the spacing of attempts after a
/// `Retry-After`: a hostile header neither hangs a retrieval nor makes it hammer the server.
final class RetryBudgetTests: XCTestCase {
    private func decision(_ p: RetryPolicy, _ retry: Int, _ error: FetchError, elapsed: Double = 0) -> RetryPolicy.Decision {
        p.decision(beforeRetry: retry, after: error, elapsed: elapsed, random: { 0 })
    }

    func testMaxTimeDefaultsToFiveMinutes() {
        XCTAssertEqual(RetryPolicy().maxTime, 300)
        XCTAssertEqual(RetryPolicy(maxRetries: 3).maxTime, RetryPolicy.defaultMaxTime)
        XCTAssertEqual(FetchOptions().retry.maxTime, 300)
    }

    func testARetryAfterBeyondTheBudgetFailsAtOnceNamingTheWait() {
        let p = RetryPolicy(maxRetries: 1)
        XCTAssertEqual(decision(p, 1, .httpStatus(503, retryAfter: 999_999_999)), .waitBeyondLimit(999_999_999))
        XCTAssertEqual(decision(p, 1, .httpStatus(429, retryAfter: 301)), .waitBeyondLimit(301))
        XCTAssertEqual(decision(p, 1, .httpStatus(429, retryAfter: 300)), .retry(after: 300), "ends exactly at the limit")
        XCTAssertEqual(decision(p, 1, .httpStatus(429, retryAfter: 60), elapsed: 250), .waitBeyondLimit(60), "the budget runs from the start")
        XCTAssertNil(p.delay(beforeRetry: 1, after: .httpStatus(503, retryAfter: 999_999_999), elapsed: 0))
        // Not retryable, or no retries left: the plain failure, whatever the header says.
        XCTAssertEqual(decision(p, 2, .httpStatus(503, retryAfter: 999_999_999)), .giveUp)
        XCTAssertEqual(decision(p, 1, .httpStatus(404, retryAfter: 999_999_999)), .giveUp)
        XCTAssertEqual(decision(RetryPolicy(), 1, .httpStatus(503, retryAfter: 999_999_999)), .giveUp)

        let error = FetchError.retryAfterBeyondLimit(status: 503, wait: 999_999_999, limit: 300)
        XCTAssertEqual(error.code, "http_status")
        XCTAssertFalse(error.isRetryable)
        XCTAssertTrue(error.message.contains("HTTP 503"), error.message)
        XCTAssertTrue(error.message.contains("999999999 s"), error.message)
        XCTAssertTrue(error.message.contains("300 s"), error.message)
        XCTAssertTrue(FetchError.retryAfterBeyondLimit(status: 429, wait: 2.25, limit: 1.5).message.contains("2.3 s"))
    }

    func testAttemptsStayAtLeastTheBaseDelayApartAfterRetryAfter() {
        let p = RetryPolicy(maxRetries: 100, baseDelay: 0.5)
        XCTAssertEqual(decision(p, 1, .httpStatus(503, retryAfter: 0)), .retry(after: 0.5))
        XCTAssertEqual(decision(p, 99, .httpStatus(503, retryAfter: 0.1)), .retry(after: 0.5))
        XCTAssertEqual(decision(p, 1, .httpStatus(503, retryAfter: 2)), .retry(after: 2), "a longer Retry-After is used as is")
        XCTAssertEqual(decision(RetryPolicy(maxRetries: 1, baseDelay: 0), 1, .httpStatus(503, retryAfter: 0)), .retry(after: 0),
                       "--retry-delay 0 asks for no spacing")
        // The floor counts against the budget too.
        XCTAssertEqual(decision(RetryPolicy(maxRetries: 1, baseDelay: 5, maxTime: 10), 1, .httpStatus(503, retryAfter: 0), elapsed: 8), .giveUp)
    }

    func testWithoutALimitTheHourCapStays() {
        let p = RetryPolicy(maxRetries: 1, maxTime: nil)
        XCTAssertEqual(decision(p, 1, .httpStatus(503, retryAfter: 999_999_999)), .retry(after: RetryPolicy.longestRetryAfter))
    }
}
