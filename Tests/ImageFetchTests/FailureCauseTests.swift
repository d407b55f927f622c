import XCTest
@testable import ImageFetch

/// The cause table (`FetchError+Cause.swift`): every row of libcurl's codes, every pipeline error.
final class FailureCauseTests: XCTestCase {
    private func transfer(_ code: Int32, connected: Bool = false, status: Int = 0) -> TransferResult {
        var r = TransferResult(curlCode: code, httpStatus: status, errorMessage: "libcurl says \(code)")
        if connected { r.times.connect = 1500 }
        return r
    }

    private func classified(_ code: Int32, connected: Bool = false, proxy: String? = nil) -> FetchError? {
        var request = LoadRequest(source: .http("http://h.test/a.jpg"))
        request.network.proxy = proxy
        return HTTPLoader.classify(transfer(code, connected: connected), request: request)
    }

    /// Each row: libcurl's code, whether a connection was made, the contract's code (unchanged) and the cause.
    func testEveryCurlRowGivesItsCodeAndCause() {
        let rows: [(Int32, Bool, String, FailureCause)] = [
            (6, false, "unreachable", .dns), (7, false, "unreachable", .refused),
            (28, false, "timeout", .connectTimeout), (28, true, "timeout", .timeout),
            (56, true, "connection", .reset), (52, true, "connection", .reset), (55, true, "connection", .reset),
            (18, true, "connection", .reset), (16, true, "connection", .reset), (92, true, "connection", .reset),
            (35, true, "tls", .tls), (60, true, "tls", .tls), (58, false, "tls", .tls), (77, false, "tls", .tls),
            (53, false, "connection", .tls), (54, false, "connection", .tls), (59, false, "connection", .tls),
            (64, false, "connection", .tls), (66, false, "connection", .tls), (80, true, "connection", .tls),
            (82, false, "connection", .tls), (83, false, "connection", .tls), (90, true, "connection", .tls),
            (91, true, "connection", .tls), (98, true, "connection", .tls),
            (5, false, "unreachable", .proxy), (97, false, "connection", .proxy),
            (1, false, "redirect_refused", .redirectRefused), (47, true, "redirect_refused", .redirectRefused),
            (63, true, "too_large", .tooLarge), (42, false, "cancelled", .cancelled), (3, false, "invalid_source", .invalidSource),
        ]
        for (code, connected, expectedCode, cause) in rows {
            let error = classified(code, connected: connected)
            XCTAssertEqual(error?.code, expectedCode, "curl \(code)")
            XCTAssertEqual(error?.cause, cause, "curl \(code)")
            XCTAssertEqual(FailureCause.curl(code, connected: connected, viaProxy: false), cause, "curl \(code)")
        }
    }

    func testARefusedConnectionThroughAProxyIsTheProxys() {
        XCTAssertEqual(classified(7, proxy: "http://127.0.0.1:9")?.cause, .proxy)
        XCTAssertEqual(classified(7, proxy: "http://127.0.0.1:9")?.code, "unreachable")
    }

    func testAnUnknownCurlCodeIsNetworkWithItsNumber() throws {
        let error = try XCTUnwrap(classified(99))
        XCTAssertEqual(error.code, "connection")
        XCTAssertEqual(error.cause, .network)
        XCTAssertTrue(error.message.contains("curl code 99"), error.message)
    }

    func testTheMessageNamesTheCauseInWords() throws {
        for (code, words) in [(Int32(6), "does not resolve"), (7, "refused"), (28, "timed out connecting"), (56, "reset")] {
            let message = try XCTUnwrap(classified(code)).message
            XCTAssertTrue(message.contains(words), message)
            XCTAssertTrue(message.contains("libcurl says \(code)"), "libcurl's words stay: \(message)")
        }
        XCTAssertTrue(try XCTUnwrap(classified(28, connected: true)).message.contains("timed out after connecting"))
    }

    /// Each row: a pipeline error and its cause.
    func testEveryPipelineErrorHasItsCause() {
        let rows: [(FetchError, FailureCause)] = [
            (.invalidSource("x"), .invalidSource), (.constrained, .constrained),
            (.httpStatus(404, retryAfter: nil), .http), (.retryAfterBeyondLimit(status: 429, wait: 9, limit: 1), .http),
            (.loginWithheld(status: 401, host: "h"), .http), (.timeout("t"), .timeout),
            (.timeout("t", cause: .connectTimeout), .connectTimeout), (.connection("c"), .reset),
            (.unreachable("u"), .refused), (.unreachable("u", cause: .dns), .dns), (.redirectRefused("r"), .redirectRefused),
            (.tls("t"), .tls), (.deniedAddress("d"), .deniedAddress), (.tooLarge("t"), .tooLarge),
            (.invalidImage("i"), .decode), (.unsupportedFormat("u"), .unsupportedFormat), (.fileError("f"), .fileError),
            (.notCached, .notCached), (.cachedButStale(expiredAgo: 3), .notCached), (.cacheUnavailable("c"), .cacheUnavailable),
            (.dependencyMissing("d"), .dependencyMissing), (.cancelled, .cancelled), (.hostDown("h"), .hostDown),
        ]
        for (error, cause) in rows { XCTAssertEqual(error.cause, cause, "\(error)") }
        XCTAssertEqual(FetchError.hostDown("h").code, "host_down")
        XCTAssertFalse(FetchError.hostDown("h").isRetryable, "a host marked down is not retried")
    }

    func testSourcesExhaustedHasTheLastSourcesCause() {
        let error = FetchError.sourcesExhausted([SourceFailure(source: "a", error: .unreachable("x", cause: .dns), attempts: 1),
                                                 SourceFailure(source: "b", error: .httpStatus(404, retryAfter: nil), attempts: 1)])
        XCTAssertEqual(error.cause, .http)
        XCTAssertEqual(error.code, "sources_exhausted")
    }

    func testOnlyDNSRefusedAndConnectTimeoutAreConnectLevel() {
        XCTAssertEqual(Set(FailureCause.allCases.filter(\.isConnectLevel)), [.dns, .refused, .connectTimeout])
    }

    func testAnHTTPErrorStatusIsHTTP() {
        let request = LoadRequest(source: .http("http://h.test/a.jpg"))
        XCTAssertEqual(HTTPLoader.classify(transfer(0, connected: true, status: 503), request: request)?.cause, .http)
    }
}

/// The phases of a transfer from libcurl's cumulative times, and the run's sketch.
final class TimingTests: XCTestCase {
    private func times(_ dns: Int64, _ connect: Int64, _ tls: Int64, _ first: Int64, _ total: Int64) -> TransferTimes {
        var t = TransferTimes()
        (t.dns, t.connect, t.tls, t.firstByte, t.total) = (dns, connect, tls, first, total)
        return t
    }

    func testPhasesAreTheDifferencesOfTheCumulativeTimes() {
        XCTAssertEqual(times(100, 300, 700, 1000, 5000).phases(secure: true), [100, 200, 400, 300, 4000])
        XCTAssertEqual(times(100, 300, 0, 1000, 5000).phases(secure: false), [100, 200, 0, 700, 4000])
    }

    func testTheTimeAfterTheLastPointGoesToThePhaseUnderWay() {
        XCTAssertEqual(times(100, 0, 0, 0, 2_000_000).phases(secure: false), [100, 1_999_900, 0, 0, 0], "a connect timeout")
        XCTAssertEqual(times(100, 300, 0, 0, 9000).phases(secure: true), [100, 200, 8700, 0, 0], "a TLS handshake that failed")
        XCTAssertEqual(times(100, 300, 0, 0, 9000).phases(secure: false), [100, 200, 0, 8700, 0], "no first byte")
    }

    func testTheSketchGivesPercentilesWithinTwoPercent() {
        var sketch = TimingSketch()
        var t = Timing()
        t.dns = 1; t.transfer = 10; t.decode = 100
        for _ in 0..<99 { sketch.add(t) }
        t.decode = 1000
        sketch.add(t)
        let decode = Timing.phases.firstIndex(of: "decode")!
        XCTAssertEqual(sketch.samples(decode), 100)
        XCTAssertEqual(sketch.quantile(decode, 0.5)!, 100, accuracy: 2.1)
        XCTAssertEqual(sketch.quantile(decode, 1)!, 1000, accuracy: 21)
        XCTAssertNil(sketch.quantile(Timing.phases.firstIndex(of: "tls")!, 0.5), "a phase that never took time")
    }

    func testCauseCountsCountByCause() {
        var counts = CauseCounts()
        counts.add(.unreachable("x", cause: .dns))
        counts.add(.unreachable("x", cause: .dns))
        counts.add(.httpStatus(404, retryAfter: nil))
        XCTAssertEqual(counts.entries.map(\.cause), [.dns, .http])
        XCTAssertEqual(counts[.dns], 2)
    }
}
