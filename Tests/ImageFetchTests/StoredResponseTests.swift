import XCTest
@testable import ImageFetch

/// What an entry keeps of its response: the 304 merge (RFC 9111 §4.3.4), Vary, and the `.meta` form.
final class StoredResponseTests: XCTestCase {
    let now = 1_700_000_000.0

    private func headers(_ pairs: [(String, String)]) -> HTTPHeaders { HTTPHeaders(pairs.map { (name: $0.0, value: $0.1) }) }

    func testOnlyCachingFieldsAreKeptLowerCased() {
        let r = StoredResponse(status: 200, requestTime: now, responseTime: now, defaultTTL: 60,
                               headers: headers([("Cache-Control", "max-age=5"), ("Set-Cookie", "a=b"), ("ETag", "\"x\""),
                                                 ("X-Big", "y"), ("Date", String(repeating: "d", count: 3000))]))
        XCTAssertEqual(r.headers, headers([("cache-control", "max-age=5"), ("etag", "\"x\"")]))
    }

    func testA304ReplacesTheFieldsItCarriesAndKeepsTheRest() {
        let stored = StoredResponse(status: 200, requestTime: now - 100, responseTime: now - 100, defaultTTL: 60,
                                    headers: headers([("Cache-Control", "max-age=2, must-revalidate"), ("ETag", "\"v1\""),
                                                      ("Content-Type", "image/png"), ("Age", "50")]))
        // A 304 without Cache-Control keeps the stored rules: no 7-day hit after one revalidation.
        let bare = stored.updated(with: headers([("ETag", "\"v1\"")]), requestTime: now, responseTime: now, defaultTTL: 604_800)
        XCTAssertEqual(bare.freshness.lifetime, 2)
        XCTAssertTrue(bare.freshness.noStale)
        XCTAssertEqual(bare.freshness.expires, now + 2)   // the stored Age is the old exchange's, dropped
        XCTAssertEqual(bare.headers.values("content-type"), ["image/png"])
        // A 304 that carries Cache-Control replaces it.
        let renewed = stored.updated(with: headers([("Cache-Control", "max-age=600")]), requestTime: now, responseTime: now,
                                     defaultTTL: 60)
        XCTAssertEqual(renewed.freshness.expires, now + 600)
        XCTAssertFalse(renewed.freshness.noStale)
        XCTAssertEqual(renewed.headers.values("etag"), ["\"v1\""])
    }

    func testVarySelectionMatchesWhatImgfetchSends() {
        XCTAssertNil(Vary.selection(for: []))
        let ua = Vary.selection(for: ["user-agent"])
        XCTAssertEqual(ua, "user-agent=" + HTTPLoader.userAgent)
        XCTAssertTrue(Vary.matches(ua))
        XCTAssertTrue(Vary.matches(Vary.selection(for: ["foo", "accept"])))
        XCTAssertFalse(Vary.matches("user-agent=imgfetch/0.0.0-other"))
        XCTAssertFalse(Vary.matches("foo=1"))   // stored when a Foo was sent: imgfetch sends none
        XCTAssertEqual(Vary.names(headers([("Vary", "Accept, accept"), ("Vary", " FOO ")])), ["accept", "foo"])
    }

    func testTheMetaFormKeepsTheResponseAndOlderEntriesStillDecode() throws {
        var entry = CacheEntry(key: String(repeating: "ab", count: 32), identity: "i", source: "s", variant: "original", format: "png", width: 1, height: 1,
                               bytes: 3, checksum: "xxh64:0", created: now, expires: now + 5)
        let plain = try XCTUnwrap(CacheEntry.decode(entry.encoded()))
        XCTAssertNil(plain.response)
        entry.response = StoredResponse(status: 203, requestTime: now - 1, responseTime: now, defaultTTL: 60,
                                        headers: headers([("Cache-Control", "max-age=5"), ("ETag", "\"a\\\\b\"")]))
        entry.vary = "accept=*/*\nfoo="
        let decoded = try XCTUnwrap(CacheEntry.decode(entry.encoded()))
        XCTAssertEqual(decoded, entry)
    }

    func testHostileMetaFieldsAreIgnored() throws {
        let entry = CacheEntry(key: String(repeating: "ab", count: 32), identity: "i", source: "s", variant: "original", format: "png", width: 1, height: 1,
                               bytes: 3, checksum: "xxh64:0", created: now, expires: now + 5)
        var text = String(decoding: entry.encoded(), as: UTF8.self)
        text = text.replacingOccurrences(of: "end\n", with: "status\t99999\nrequest_time\tnan\nresponse_time\t1\nttl\t-1\nheader\tx: y\nend\n")
        let decoded = try XCTUnwrap(CacheEntry.decode(Array(text.utf8)))
        XCTAssertNil(decoded.response)
        // Foreign or broken header lines are dropped, at most 32 are read.
        var lines = String(decoding: entry.encoded(), as: UTF8.self)
        let many = (0..<40).map { "header\tetag: \"\($0)\"\n" }.joined()
        lines = lines.replacingOccurrences(of: "end\n", with: "status\t200\nrequest_time\t1\nresponse_time\t2\nttl\t3\nheader\tset-cookie: a=b\n" + many + "end\n")
        let bounded = try XCTUnwrap(CacheEntry.decode(Array(lines.utf8))?.response)
        XCTAssertEqual(bounded.headerLines.count, 32)
        XCTAssertEqual(bounded.headers.all.count, 31)
        XCTAssertTrue(bounded.headers.values("set-cookie").isEmpty)
    }
}
