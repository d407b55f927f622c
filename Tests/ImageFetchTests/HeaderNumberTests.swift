import XCTest
@testable import ImageFetch

/// Every number read from a response header or a cookie line goes through `HeaderNumber`: digits
/// only, bounded before it is computed, never a trap (a 206 whose Content-Range total was
/// `-9223372036854775808` trapped in `ContentRange.init`).
final class HeaderNumberTests: XCTestCase {
    func testOnlyDigitsAreANumber() {
        XCTAssertEqual(HeaderNumber.integer("0"), 0)
        XCTAssertEqual(HeaderNumber.integer("000120"), 120)
        XCTAssertEqual(HeaderNumber.integer("999999999999999999"), HeaderNumber.maxInteger)
        for hostile in ["", "-1", "+5", " 7", "7 ", "1.5", "1e3", "0x10", "٣", "-9223372036854775808",
                        "9223372036854775807", "99999999999999999999", "1000000000000000000"] {
            XCTAssertNil(HeaderNumber.integer(hostile), hostile)
        }
        XCTAssertEqual(HeaderNumber.integer(String(repeating: "0", count: 500) + "42"), 42, "leading zeros are not digits that count")
        XCTAssertNil(HeaderNumber.integer("61", max: 60))
    }

    func testDeltaSecondsSaturateAtTwoToThe31() {
        XCTAssertEqual(HeaderNumber.deltaSeconds("60"), 60)
        XCTAssertEqual(HeaderNumber.deltaSeconds("2147483649"), 2_147_483_648)
        XCTAssertEqual(HeaderNumber.deltaSeconds(String(repeating: "9", count: 400)), 2_147_483_648)
        XCTAssertNil(HeaderNumber.deltaSeconds("-1"))
        XCTAssertNil(HeaderNumber.deltaSeconds("+1"))
    }

    func testAHostileContentRangeIsRefusedNotTrapped() {
        XCTAssertNil(ContentRange("bytes 6-9/-9223372036854775808"))
        XCTAssertNil(ContentRange("bytes 6-9223372036854775807/-9223372036854775808"))
        XCTAssertNil(ContentRange("bytes -1-9/10"))
        XCTAssertNil(ContentRange("bytes 6-9/9223372036854775807"))
        XCTAssertNil(ContentRange("bytes +6-9/10"))
        XCTAssertNil(ContentRange("bytes 6-9/0"))
        XCTAssertEqual(ContentRange("bytes 6-9/10")?.total, 10)
        XCTAssertEqual(ContentRange("bytes 6-9/*")?.start, 6)
    }

    func testEveryHeaderNumberTakesTheSameRule() {
        let h = HTTPHeaders([("Age", "+30"), ("Cache-Control", "max-age=+60, stale-if-error=-5")])
        XCTAssertNil(Freshness.ageValue(h))
        XCTAssertEqual(CacheControl(headers: h).seconds("max-age"), 0, "an invalid max-age makes the response stale")
        XCTAssertEqual(CacheControl(headers: h).seconds("stale-if-error"), 0)
        XCTAssertNil(HTTPLoader.retryAfter("+5"))
        XCTAssertNil(HTTPLoader.retryAfter("-5"))
        let line = ".example.com\tTRUE\t/\tFALSE\t+99\tsid\tv"
        XCTAssertThrowsError(try CookieFile(parsing: Array(line.utf8)), "a cookie expiry with a sign")
        XCTAssertThrowsError(try CookieFile(parsing: Array(line.replacingOccurrences(of: "+99", with: "99999999999999999999").utf8)))
    }
}
