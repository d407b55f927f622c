import XCTest
@testable import ImageFetch

final class FreshnessTests: XCTestCase {
    let now = 1_700_000_000.0
    let ttl = 7 * 86_400.0

    private func freshness(_ headers: [(String, String)], defaultTTL: Double? = nil) -> Freshness {
        Freshness.from(headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }), now: now, defaultTTL: defaultTTL ?? ttl)
    }

    private func evaluate(_ headers: [(String, String)], status: Int = 200, sent: Double? = nil, arrived: Double? = nil) -> Freshness {
        Freshness.evaluate(status: status, headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }),
                           requestTime: sent ?? now, responseTime: arrived ?? now, defaultTTL: ttl)
    }

    func testMaxAge() {
        let f = freshness([("Cache-Control", "public, max-age=3600")])
        XCTAssertEqual(f.expires, now + 3600)
        XCTAssertTrue(f.storable)
        XCTAssertFalse(f.mustRevalidate)
        XCTAssertEqual(f.basis, "max-age=3600")
    }

    func testDirectivesAreCaseInsensitiveAndQuotedValuesAccepted() {
        XCTAssertEqual(freshness([("cache-control", "Max-Age=\"120\"")]).expires, now + 120)
        XCTAssertEqual(freshness([("CACHE-CONTROL", " max-age=60 ")]).expires, now + 60)
    }

    func testSpaceAroundEqualsOrAFractionMakesMaxAgeInvalidSoStale() {
        for value in ["max-age =60", "max-age= 60", "max-age=60.0", "max-age='60'", "max-age=60a"] {
            XCTAssertEqual(freshness([("Cache-Control", value)]).expires, now, value)
        }
    }

    func testNegativeMaxAgeIsExpiredNow() {
        XCTAssertEqual(freshness([("Cache-Control", "max-age=-5")]).expires, now)
    }

    func testAPrivateCacheIgnoresSMaxAge() {
        XCTAssertEqual(freshness([("Cache-Control", "max-age=60, s-maxage=600")]).expires, now + 60)
        XCTAssertEqual(freshness([("Cache-Control", "s-maxage=600"), ("Cache-Control", "max-age=60")]).expires, now + 60)
        XCTAssertEqual(freshness([("Cache-Control", "s-maxage=600")], defaultTTL: 30).expires, now + 30)
        XCTAssertFalse(freshness([("Cache-Control", "max-age=60, proxy-revalidate")]).noStale)
    }

    func testMaxAgeWinsOverExpires() {
        let f = freshness([("Cache-Control", "max-age=10"), ("Date", HTTPDate.format(now)),
                           ("Expires", HTTPDate.format(now + 99_999))])
        XCTAssertEqual(f.expires, now + 10)
    }

    func testTheFirstOfTwoMaxAgesIsUsedAndQuotedCommasDoNotSplit() {
        XCTAssertEqual(freshness([("Cache-Control", "max-age=60, max-age=1")]).expires, now + 60)
        XCTAssertEqual(freshness([("Cache-Control", "ext=\"max-age=600, x\", max-age=5")]).expires, now + 5)
    }

    func testNoStoreOnAnyLineIsNotStorable() {
        XCTAssertFalse(freshness([("Cache-Control", "no-store")]).storable)
        XCTAssertFalse(freshness([("Cache-Control", "No-Store"), ("Cache-Control", "max-age=60")]).storable)
        XCTAssertFalse(freshness([("Cache-Control", "max-age=60"), ("cache-control", "no-store")]).storable)
        XCTAssertTrue(freshness([("Cache-Control", "max-age=60")]).storable)
    }

    func testMustUnderstandLiftsNoStoreForUnderstoodStatusesOnly() {
        let cc = [("Cache-Control", "max-age=60, no-store, must-understand")]
        XCTAssertTrue(evaluate(cc, status: 200).storable)
        XCTAssertFalse(evaluate(cc, status: 599).storable)
    }

    func testNoCacheAndMustRevalidateNeverServeStale() {
        let f = freshness([("Cache-Control", "no-cache")])
        XCTAssertTrue(f.storable)
        XCTAssertTrue(f.mustRevalidate)
        XCTAssertTrue(f.noStale)
        let entry = CacheEntry(key: "k", identity: "i", source: "s", variant: "original", format: "png", width: 1, height: 1,
                               bytes: 1, checksum: "", created: now, expires: f.expires, mustRevalidate: f.mustRevalidate)
        XCTAssertFalse(entry.isFresh(at: now))
        let mr = freshness([("Cache-Control", "max-age=60, must-revalidate")])
        XCTAssertTrue(mr.noStale)
        XCTAssertFalse(mr.mustRevalidate)
    }

    func testStaleWindows() {
        let f = freshness([("Cache-Control", "max-age=1, stale-while-revalidate=30, stale-if-error=600")])
        XCTAssertEqual(f.staleWhileRevalidate, 30)
        XCTAssertEqual(f.staleIfError, 600)
    }

    func testServerClockBehindCountsAsAge() {
        // RFC 9111 4.2.3: apparent_age = response_time - date_value. A Date 1000 s in the past is 1000 s of age.
        let serverNow = now - 1000
        let f = freshness([("Date", HTTPDate.format(serverNow)), ("Expires", HTTPDate.format(serverNow + 3600))])
        XCTAssertEqual(f.lifetime, 3600)
        XCTAssertEqual(f.initialAge, 1000)
        XCTAssertEqual(f.expires, now + 2600)
    }

    func testAgeAndResponseDelayAreAddedToTheInitialAge() {
        let f = evaluate([("Date", HTTPDate.format(now)), ("Cache-Control", "max-age=3600"), ("Age", "600")],
                         sent: now - 5, arrived: now)
        XCTAssertEqual(f.initialAge, 605)
        XCTAssertEqual(f.expires, now + 2995)
    }

    func testAgeParsing() {
        func age(_ lines: [String]) -> Double? { Freshness.ageValue(HTTPHeaders(lines.map { (name: "Age", value: $0) })) }
        XCTAssertEqual(age(["120"]), 120)
        XCTAssertNil(age(["abc"]))
        XCTAssertNil(age(["-10"]))
        XCTAssertNil(age(["1.5"]))
        XCTAssertEqual(age(["7200, 0"]), 7200)
        XCTAssertEqual(age(["0", "7200"]), 0)
        XCTAssertEqual(age(["2147483649"]), 2_147_483_648)
        XCTAssertEqual(age(["99999999999999999999999"]), 2_147_483_648)
        XCTAssertEqual(age(["30;p=1"]), 30)
    }

    func testExpiresWithoutDateUsesOurClock() {
        XCTAssertEqual(freshness([("Expires", HTTPDate.format(now + 300))]).expires, now + 300)
    }

    func testInvalidOrRepeatedExpiresIsAlreadyExpired() {
        for value in ["0", "-1", "never", "", "Thu, 18 Aug 2050 02:01:18 UTC"] {
            let f = freshness([("Date", HTTPDate.format(now)), ("Expires", value)])
            XCTAssertTrue(f.storable)
            XCTAssertLessThanOrEqual(f.expires ?? .infinity, now, "Expires: \(value)")
        }
        let two = freshness([("Expires", HTTPDate.format(now + 300)), ("Expires", HTTPDate.format(now + 301))])
        XCTAssertLessThanOrEqual(two.expires ?? .infinity, now)
    }

    func testDefaultTTLWithoutHeaders() {
        XCTAssertEqual(freshness([]).expires, now + ttl)
        XCTAssertEqual(freshness([("Content-Type", "image/png")], defaultTTL: 60).expires, now + 60)
        XCTAssertEqual(freshness([("Cache-Control", "public")], defaultTTL: 60).expires, now + 60)
    }

    func testHeuristicFreshnessOnlyForHeuristicallyCacheableStatuses() {
        let modified = [("Last-Modified", HTTPDate.format(now - 86_400))]
        for status in [200, 203, 204, 300, 301, 308, 404, 410] {
            XCTAssertTrue(evaluate(modified, status: status).storable, "\(status)")
        }
        for status in [201, 202, 302, 307, 403, 500, 502, 503, 599] {
            XCTAssertFalse(evaluate([], status: status).storable, "\(status)")
            XCTAssertTrue(evaluate([("Cache-Control", "max-age=60")], status: status).storable, "\(status)")
        }
        XCTAssertTrue(evaluate([("Cache-Control", "public")] + modified, status: 599).storable)
    }

    func testAnErrorStatusGetsATenthOfItsLastModifiedAgeAtMostTheDefault() {
        let date = ("Date", HTTPDate.format(now))
        let day = evaluate([date, ("Last-Modified", HTTPDate.format(now - 86_400))], status: 404)
        XCTAssertTrue(day.storable)
        XCTAssertEqual(day.lifetime, 8640)
        let old = evaluate([date, ("Last-Modified", HTTPDate.format(now - 1e9))], status: 410)
        XCTAssertEqual(old.lifetime, ttl)
        XCTAssertFalse(evaluate([date], status: 404).storable, "no Last-Modified: no heuristic for an error")
        XCTAssertEqual(evaluate([("Cache-Control", "max-age=30")], status: 503).lifetime, 30)
    }

    func testVaryStarIsNotStored() {
        for lines in [["*"], ["Accept, *"], ["", "*"]] {
            XCTAssertFalse(freshness(lines.map { ("Vary", $0) }).storable, "\(lines)")
        }
        XCTAssertTrue(freshness([("Vary", "Accept-Encoding")]).storable)
    }

    // MARK: - HTTPDate

    let rfcExample = 784_111_777.0 // Sun, 06 Nov 1994 08:49:37 GMT

    func testParseIMFFixdate() {
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), rfcExample)
    }

    func testParseRFC850() {
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"), rfcExample)
    }

    func testParseAsctime() {
        XCTAssertEqual(HTTPDate.parse("Sun Nov  6 08:49:37 1994"), rfcExample)
    }

    func testParseRejectsWhatIsNotAnHTTPDate() {
        for text in ["Thu, 18 Aug 2050 02:01:18 UTC", "Thu, 18 Aug 2050 02:01:18 AEST", "Thu, 18 Aug 50 02:01:18 GMT",
                     "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT", "Thu, 18-Aug-2050 02:01:18 GMT",
                     "Thu, 18 Aug 2050 02.01.18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT", " Sun, 06 Nov 1994 08:49:37 GMT"] {
            XCTAssertNil(HTTPDate.parse(text), text)
        }
    }

    func testParseIsCaseInsensitiveAndPlacesTwoDigitYears() {
        XCTAssertEqual(HTTPDate.parse("SUN, 06 NOV 1994 08:49:37 gmt"), rfcExample)
        let now2026 = 1_795_000_000.0
        XCTAssertEqual(HTTPDate.civil(HTTPDate.parse("Thursday, 18-Aug-50 02:01:18 GMT", now: now2026) ?? 0).year, 2050)
        XCTAssertEqual(HTTPDate.civil(HTTPDate.parse("Thursday, 18-Aug-94 02:01:18 GMT", now: now2026) ?? 0).year, 1994)
        XCTAssertEqual(HTTPDate.civil(HTTPDate.parse("Thu Aug  8 02:01:18 2050") ?? 0).day, 8)
    }

    func testParseRejectsGarbage() {
        XCTAssertNil(HTTPDate.parse("0"))
        XCTAssertNil(HTTPDate.parse(""))
        XCTAssertNil(HTTPDate.parse("yesterday"))
        XCTAssertNil(HTTPDate.parse("Sun, 06 Nov 1994"))
    }

    func testFormat() {
        XCTAssertEqual(HTTPDate.format(rfcExample), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(HTTPDate.format(0), "Thu, 01 Jan 1970 00:00:00 GMT")
        XCTAssertEqual(HTTPDate.format(951_782_400), "Tue, 29 Feb 2000 00:00:00 GMT")
    }

    func testFormatParseRoundTrip() {
        var t = 0.0
        while t < 4_102_444_800 { // until 2100, in steps of ~37 days and odd seconds
            XCTAssertEqual(HTTPDate.parse(HTTPDate.format(t)), t, HTTPDate.format(t))
            t += 3_200_017
        }
        XCTAssertEqual(HTTPDate.parse(HTTPDate.format(now + 0.75)), now)
    }
}
