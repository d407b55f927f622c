import Foundation
import XCTest
@testable import ImageFetch

/// RFC 9530 digests parsed as RFC 9651 dictionaries (`HTTPDigests`, `StructuredDictionary`), and
/// the resume's validator rules (`PartialSlot.Partial.isStrong`, `HTTPLoader.sameVersion`,
/// `HTTPLoader.keepable`).
final class HTTPDigestsTests: TemporaryCacheTestCase {
    private let abc = Array("abc".utf8)
    // sha-256 and sha-512 of "abc" (FIPS 180-2 appendix vectors), base64.
    private let abc256 = "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
    private let abc512 = "3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw=="

    func testKnownAlgorithmsAreCheckedAndOthersIgnored() throws {
        let both = try XCTUnwrap(HTTPDigests(field: "sha-256=:\(abc256):, sha-512=:\(abc512):"))
        XCTAssertTrue(both.matches(abc[...]))
        XCTAssertTrue(both.matches(abc[..<1], abc[1...]), "checked in two pieces, as a joined body is")
        XCTAssertFalse(both.matches(Array("abd".utf8)[...]))
        XCTAssertEqual(both.algorithms, "sha-512, sha-256")
        let unknown = try XCTUnwrap(HTTPDigests(field: "md5=:AAAA:, sha-256=:\(abc256):;p=1, unixsum=:AA==:"))
        XCTAssertEqual(unknown.algorithms, "sha-256")
        XCTAssertNil(HTTPDigests(field: "md5=:kAFQmDzST7DWlj99KOF/cg==:"), "no algorithm imgfetch checks: unverified")
        XCTAssertNil(HTTPDigests(field: "sha-256=:AAAA:"), "a sha-256 of another length is no sha-256")
        XCTAssertNil(HTTPDigests(field: nil))
    }

    func testAFieldThatDoesNotParseIsIgnoredWhole() {
        for field in ["sha-256=\(abc256)", "sha-256=:\(abc256)", "sha-256=:\(abc256):,", "SHA-256=:\(abc256):",
                      "sha-256=:\(abc256): x", "sha-256=:\(abc256):,,sha-512=:\(abc512):", "sha-256=:a*b:",
                      String(repeating: "a=1,", count: 5000) + "sha-256=:\(abc256):"] {
            XCTAssertNil(HTTPDigests(field: field), field.prefix(60).description)
        }
    }

    func testDictionaryMembersOfEveryKindParse() throws {
        let d = try XCTUnwrap(StructuredDictionary(#"a=1, b=-2.5, c="x\"y", d=tok/en:1, e=?0, f=(1 "2" :AA==:);q=3, g, h=@1659578233, *i=%"caf%c3%a9""#))
        XCTAssertEqual(d.members.map(\.key), ["a", "b", "c", "d", "e", "f", "g", "h", "*i"])
        XCTAssertEqual(d["f"], .other)
        XCTAssertEqual(try XCTUnwrap(StructuredDictionary("k=:AQID:, k=:BA==:"))["k"], .bytes([4]), "the last of a key wins")
        XCTAssertEqual(StructuredDictionary("")?.members.count, 0)
        for bad in ["a=1.2345", "a=1234567890123456", "a=\"\u{7}\"", "a=(1", "a=?2", "1a=1", "a=1;", "a=1\t,b=2,"] {
            XCTAssertNil(StructuredDictionary(bad), bad)
        }
    }

    func testAContradictionIsAnAlgorithmBothGiveThatDiffers() throws {
        let a = try XCTUnwrap(HTTPDigests(field: "sha-256=:\(abc256):"))
        let b = try XCTUnwrap(HTTPDigests(field: "sha-256=:\(Data(repeating: 1, count: 32).base64EncodedString()):"))
        let c = try XCTUnwrap(HTTPDigests(field: "sha-512=:\(abc512):"))
        XCTAssertTrue(a.contradicts(b))
        XCTAssertFalse(a.contradicts(c), "no algorithm in common: nothing to compare")
        XCTAssertEqual(HTTPDigests(field: a.field), a, "the field as a partial's meta keeps it")
    }

    func testOnlyAStrongValidatorIsKept() {
        let date = "Wed, 02 Dec 2026 10:00:00 GMT"
        func partial(_ headers: [(String, String)]) -> PartialSlot.Partial? {
            HTTPLoader.keepable([1, 2, 3], headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }))
        }
        XCTAssertEqual(partial([("ETag", "\"s\""), ("Date", date)])?.isStrong, true)
        XCTAssertNil(partial([("ETag", "W/\"w\""), ("Last-Modified", "Wed, 02 Dec 2026 09:00:00 GMT"), ("Date", date)]),
                     "a weak ETag: nothing, and never its date instead (RFC 9110 §13.1.5)")
        XCTAssertEqual(partial([("Last-Modified", "Wed, 02 Dec 2026 09:59:00 GMT"), ("Date", date)])?.isStrong, true, "60 s before")
        XCTAssertEqual(partial([("Last-Modified", "Wed, 02 Dec 2026 09:59:01 GMT"), ("Date", date)])?.isStrong, false, "59 s before")
        XCTAssertEqual(partial([("Last-Modified", "Wed, 02 Dec 2026 09:00:00 GMT")])?.isStrong, false, "no Date: no margin known")
        XCTAssertNil(partial([("Date", date)]))
    }

    func testA206MustCarryTheKeptValidatorItself() {
        let lm = "Wed, 02 Dec 2026 09:00:00 GMT"
        XCTAssertTrue(HTTPLoader.sameVersion(HTTPHeaders([(name: "ETag", value: "\"v1\"")]), validator: "\"v1\""))
        XCTAssertFalse(HTTPLoader.sameVersion(HTTPHeaders([]), validator: "\"v1\""), "no ETag on the 206")
        XCTAssertFalse(HTTPLoader.sameVersion(HTTPHeaders([(name: "ETag", value: "\"v2\"")]), validator: "\"v1\""))
        XCTAssertTrue(HTTPLoader.sameVersion(HTTPHeaders([(name: "Last-Modified", value: "\(lm)")]), validator: lm))
        XCTAssertFalse(HTTPLoader.sameVersion(HTTPHeaders([(name: "ETag", value: "\"v1\"")]), validator: lm), "no Last-Modified on the 206")
        XCTAssertFalse(HTTPLoader.sameVersion(HTTPHeaders([(name: "Last-Modified", value: "Wed, 02 Dec 2026 09:00:01 GMT")]), validator: lm))
    }

    func testAPartialOfTheOldFormatOrAWeakDateIsDroppedWhenRead() throws {
        let cache = makeCache(sizeLimit: 1 << 20)
        let slot = try XCTUnwrap(cache.partialSlot(for: Self.key("p")))
        var strong = PartialSlot.Partial(bytes: [1, 2, 3], validator: "Wed, 02 Dec 2026 09:00:00 GMT", total: 10,
                                         date: HTTPDate.parse("Wed, 02 Dec 2026 10:00:00 GMT"))
        strong.reprDigest = HTTPDigests(field: "sha-256=:\(abc256):")
        slot.save(strong, now: FileSystem.now())
        XCTAssertEqual(slot.read(), strong, "kept with its date and digest")
        // As the binary before the date was kept wrote it: dropped, never sent.
        let meta = cache.root + "/partial/" + Self.key("p").rawValue + ".pmeta"
        try "imgfetch-partial 1\nvalidator \"v1\"\nlength 3\ncreated \(FileSystem.now())\n".write(toFile: meta, atomically: true, encoding: .utf8)
        XCTAssertNil(slot.read())
        XCTAssertFalse(FileManager.default.fileExists(atPath: meta), "removed")
        // A meta whose date is too close to its Last-Modified (a hostile or damaged file): dropped.
        var weak = strong
        weak.date = HTTPDate.parse("Wed, 02 Dec 2026 09:00:30 GMT")
        slot.save(weak, now: FileSystem.now())
        XCTAssertNil(slot.read(), "never saved, so nothing to read")
        slot.save(strong, now: FileSystem.now())
        let text = try String(contentsOfFile: meta, encoding: .utf8).replacingOccurrences(of: "date \(strong.date!)", with: "date \(weak.date!)")
        try text.write(toFile: meta, atomically: true, encoding: .utf8)
        XCTAssertNil(slot.read())
    }
}
