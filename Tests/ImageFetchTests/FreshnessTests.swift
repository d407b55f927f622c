import XCTest
@testable import ImageFetch

final class FreshnessTests: XCTestCase {
    let now = 1_700_000_000.0
    let ttl = 7 * 86_400.0

    private func freshness(_ headers: [(String, String)], defaultTTL: Double? = nil) -> Freshness {
        Freshness.from(headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }), now: now, defaultTTL: defaultTTL ?? ttl)
    }

    func testMaxAge() {
        let f = freshness([("Cache-Control", "public, max-age=3600")])
        XCTAssertEqual(f, Freshness(storable: true, mustRevalidate: false, expires: now + 3600))
    }

    func testDirectivesAreCaseInsensitiveAndQuotedValuesAccepted() {
        XCTAssertEqual(freshness([("cache-control", "Max-Age=\"120\"")]).expires, now + 120)
        XCTAssertEqual(freshness([("CACHE-CONTROL", " max-age = 60 ")]).expires, now + 60)
    }

    func testNegativeMaxAgeIsExpiredNow() {
        XCTAssertEqual(freshness([("Cache-Control", "max-age=-5")]).expires, now)
    }

    func testSMaxAgeOverridesMaxAgeInEitherOrder() {
        XCTAssertEqual(freshness([("Cache-Control", "max-age=60, s-maxage=600")]).expires, now + 600)
        XCTAssertEqual(freshness([("Cache-Control", "s-maxage=600, max-age=60")]).expires, now + 600)
    }

    func testMaxAgeWinsOverExpires() {
        let f = freshness([("Cache-Control", "max-age=10"), ("Date", HTTPDate.format(now)),
                           ("Expires", HTTPDate.format(now + 99_999))])
        XCTAssertEqual(f.expires, now + 10)
    }

    func testNoStoreIsNotStorable() {
        let f = freshness([("Cache-Control", "no-store")])
        XCTAssertFalse(f.storable)
        XCTAssertTrue(freshness([("Cache-Control", "max-age=60")]).storable)
    }

    func testNoCacheMustRevalidate() {
        let f = freshness([("Cache-Control", "no-cache")])
        XCTAssertTrue(f.storable)
        XCTAssertTrue(f.mustRevalidate)
        let entry = CacheEntry(key: "k", identity: "i", source: "s", variant: "original", format: "png", width: 1, height: 1,
                               bytes: 1, checksum: "", created: now, expires: f.expires, mustRevalidate: f.mustRevalidate)
        XCTAssertFalse(entry.isFresh(at: now))
    }

    func testExpiresIsRelativeToServerDate() {
        // The server clock is 1000 s behind ours: Expires one hour after its Date is one hour from our now.
        let serverNow = now - 1000
        let f = freshness([("Date", HTTPDate.format(serverNow)), ("Expires", HTTPDate.format(serverNow + 3600))])
        XCTAssertEqual(f.expires, now + 3600)
        XCTAssertFalse(f.mustRevalidate)
    }

    func testExpiresWithoutDateUsesOurClock() {
        XCTAssertEqual(freshness([("Expires", HTTPDate.format(now + 300))]).expires, now + 300)
    }

    func testInvalidExpiresIsAlreadyExpired() {
        for value in ["0", "-1", "never", ""] {
            let f = freshness([("Date", HTTPDate.format(now)), ("Expires", value)])
            XCTAssertTrue(f.storable)
            XCTAssertNotNil(f.expires, value)
            XCTAssertLessThanOrEqual(f.expires ?? .infinity, now, "Expires: \(value)")
        }
    }

    func testDefaultTTLWithoutHeaders() {
        XCTAssertEqual(freshness([]), Freshness(storable: true, mustRevalidate: false, expires: now + ttl))
        XCTAssertEqual(freshness([("Content-Type", "image/png")], defaultTTL: 60).expires, now + 60)
        XCTAssertEqual(freshness([("Cache-Control", "public")], defaultTTL: 60).expires, now + 60)
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
