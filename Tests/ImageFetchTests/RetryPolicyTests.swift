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
        XCTAssertEqual(delay(policy, 1, .httpStatus(503, retryAfter: 0)), 0)
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
