import Foundation
import XCTest

/// Issue 41's stitched resume: a kept partial is never joined to another version of its file. Two
/// 320x240 TIFFs of one length (red.tiff, blue.tiff: made by the test server) stand for a file
/// rewritten in place (`then=blue.tiff`: the requests after the first get the new bytes); the first
/// transfer is cut after half its body. A stitch would be red above blue: the tests ask for the
/// blue file byte for byte, then a cache hit of the same. And RFC 9530 digests, checked before
/// anything is stored.
final class ResumeValidatorTests: E2ETestCase {
    private var photo: Data { (try? E2EPaths.fixtureData("photo.jpg")) ?? Data() }

    private func partials() -> [URL] {
        regularFiles(under: cacheDir).filter { $0.path.contains("/v1/partial/") }
    }

    /// An HTTP date `ago` seconds before now, percent-encoded for a query.
    private func httpDate(ago: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let text = formatter.string(from: Date(timeIntervalSinceNow: -ago))
        return text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// The blue file as an uninterrupted download gives it (another cache, another URL), on stdout
    /// (a TIFF is written as it came: no output format names it).
    private func blue() throws -> Data {
        let r = try imgfetch(["get", "--cache-dir", work.appendingPathComponent("plain").path, imageURL("blue.tiff", "v=plain")])
        assertExit(r, 0)
        return r.stdout
    }

    /// Gets `path` with one quick retry, then asserts it is the blue file, and that a second get is
    /// a cache hit of the same bytes.
    private func assertBlueThenHit(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try get([server.url(path), "--retry", "1", "--retry-delay", "0"])
        assertExit(r, 0, file: file, line: line)
        let expected = try blue()
        XCTAssertEqual(expected.count, 230_552, file: file, line: line)
        XCTAssertTrue(r.stdout == expected, "the new version whole, never two joined", file: file, line: line)
        let hit = try get([server.url(path), "-v"])
        assertExit(hit, 0, file: file, line: line)
        XCTAssertTrue(hit.stderr.contains("hit"), "a cache hit:\n\(hit.stderr)", file: file, line: line)
        XCTAssertTrue(hit.stdout == expected, file: file, line: line)
        XCTAssertEqual(partials(), [], file: file, line: line)
    }

    func testALastModifiedInTheSecondOfItsDateKeepsNothing() throws {
        // Rewritten within the second its Last-Modified names: the date is a weak validator.
        let path = imagePath("red.tiff", "cc=max-age%3D3600&drop=50&id=lmnow&noetag=1&then=blue.tiff&lm=\(httpDate(ago: 0))")
        try assertBlueThenHit(path)
        let requests = try server.requests(path)
        XCTAssertEqual(requests.count, 2, "cut, then whole (the hit asks nothing): \(requests.map(\.status))")
        XCTAssertNil(requests[1].headers["range"], "nothing was kept under a weak date: no Range")
    }

    func testAWeakETagKeepsNothing() throws {
        let path = imagePath("photo.jpg", "drop=60&id=weak&etag=W/%22w1%22")
        assertExit(try get([server.url(path), "--retry", "1", "--retry-delay", "0", "-o", file("a.jpg").path]), 0)
        XCTAssertEqual(try Data(contentsOf: file("a.jpg")), photo)
        let requests = try server.requests(path)
        XCTAssertEqual(requests.count, 2)
        XCTAssertNil(requests.last?.headers["range"], "a weak ETag: no Range, and no date in If-Range either")
        XCTAssertNil(requests.last?.headers["if-range"])
    }

    func testALastModifiedAMinuteBeforeItsDateIsResumed() throws {
        let path = imagePath("photo.jpg", "drop=60&id=lmold&noetag=1&lm=\(httpDate(ago: 3600))")
        let r = try get([server.url(path), "--retry", "1", "--retry-delay", "0", "-o", file("a.jpg").path, "--json", "-v"])
        assertExit(r, 0)
        XCTAssertEqual(try Data(contentsOf: file("a.jpg")), photo)
        let last = try server.requests(path).last
        XCTAssertEqual(last?.status, 206)
        XCTAssertEqual(last?.headers["if-range"]?.hasSuffix("GMT"), true, "the date in If-Range")
        XCTAssertEqual(last?.headers["want-repr-digest"], "sha-256=1")
        XCTAssertTrue(r.stderr.contains("unverified"), "-v says a resume without a digest is unverified:\n\(r.stderr)")
    }

    func testA206WithoutTheKeptETagStartsOver() throws {
        // A server that ignores If-Range answers the Range from its new file, with no validator.
        let path = imagePath("red.tiff", "cc=max-age%3D3600&drop=50&id=noetag206&ignoreifrange=1&no206validators=1&then=blue.tiff&etag=%22same%22")
        try assertBlueThenHit(path)
        XCTAssertEqual(try server.requests(path).map(\.status), [200, 206, 200], "the 206 is refused and the body asked for whole")
    }

    func testAWholeBodyThatDoesNotMatchItsDigestIsNeverStored() throws {
        for field in ["repr", "content"] {
            let url = imageURL("photo.jpg", "digest=\(field)&baddigest=1")
            let r = try get([url, "--json", "-o", file("a.jpg").path])
            assertExit(r, 7)
            assertFailureRecord(r, code: "integrity")
            XCTAssertEqual((singleRecord(r)["error"] as? [String: Any])?["cause"] as? String, "integrity")
            XCTAssertEqual(try server.requests(imagePath("photo.jpg", "digest=\(field)&baddigest=1")).count, 1, "not retried")
            assertExit(try get([url, "--offline", "-o", file("b.jpg").path]), 3)
        }
    }

    func testAMatchingDigestIsSaidInTheRecord() throws {
        let r = try get([imageURL("photo.jpg", "digest=repr,content&digestalg=sha-512"), "--json", "-o", file("a.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r)["digest"] as? String, "sha-512")
        XCTAssertEqual(try Data(contentsOf: file("a.jpg")), photo)
    }

    func testAResumedPartThatDoesNotMatchItsContentDigestFails() throws {
        let path = imagePath("photo.jpg", "drop=60&id=cdbad&digest=content&baddigest=1")
        let r = try get([server.url(path), "--retry", "2", "--retry-delay", "0", "--json", "-o", file("a.jpg").path])
        assertExit(r, 7)
        assertFailureRecord(r, code: "integrity")
        XCTAssertEqual(try server.requests(path).map(\.status), [200, 206], "cut, then a 206 that does not check out: not retried")
        XCTAssertEqual(partials(), [], "the kept bytes go")
    }

    func testAStitchThatDoesNotMatchTheReprDigestIsNeverStored() throws {
        // The same strong ETag after the rewrite (a server that keeps it), and a Repr-Digest only
        // from the second answer on: the joined red-and-blue body does not match blue's digest.
        let path = imagePath("red.tiff", "drop=50&id=stitch&then=blue.tiff&etag=%22same%22&digest=repr&digestafter=1")
        let r = try get([server.url(path), "--retry", "1", "--retry-delay", "0", "--json"])
        assertExit(r, 7)
        assertFailureRecord(r, code: "integrity")
        XCTAssertEqual(try server.requests(path).last?.status, 206)
        XCTAssertEqual(partials(), [])
        assertExit(try get([server.url(path), "--offline"]), 3)
    }

    func testA206OfAnotherReprDigestStartsOver() throws {
        // The first answer's Repr-Digest is kept with the partial; the 206 names another.
        let path = imagePath("red.tiff", "cc=max-age%3D3600&drop=50&id=repr2&then=blue.tiff&etag=%22same%22&digest=repr")
        try assertBlueThenHit(path)
        XCTAssertEqual(try server.requests(path).map(\.status), [200, 206, 200])
    }
}
