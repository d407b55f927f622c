import Foundation
import XCTest

/// A transfer that ends early keeps its bytes and the next attempt asks for the rest (`Range` +
/// `If-Range`), within a run's retries and across runs; a changed validator starts over; nothing is
/// resumed without a validator or from another variant's partial; the result is byte for byte an
/// uninterrupted download's. The server cuts a transfer after 60 % (drop=60) or trickles it.
final class ResumeTests: E2ETestCase {
    private var photo: Data { (try? E2EPaths.fixtureData("photo.jpg")) ?? Data() }

    private func partials() -> [URL] {
        regularFiles(under: cacheDir).filter { $0.path.contains("/v1/partial/") }
    }

    private func sent(_ requests: [TestServer.LogEntry]) -> Int { requests.compactMap(\.sent).reduce(0, +) }

    func testACutTransferIsResumedWithinTheRun() throws {
        let path = imagePath("photo.jpg", "drop=60&id=within")
        let r = try get([server.url(path), "--retry", "1", "--retry-delay", "0", "-o", file("a.jpg").path, "--json"])
        assertExit(r, 0)
        XCTAssertEqual(try Data(contentsOf: file("a.jpg")), photo, "the bytes of an uninterrupted download")
        let requests = try server.requests(path)
        XCTAssertEqual(requests.count, 2)
        let cut = photo.count * 60 / 100
        XCTAssertEqual(requests.last?.headers["range"], "bytes=\(cut)-")
        XCTAssertNotNil(requests.last?.headers["if-range"])
        XCTAssertEqual(requests.last?.status, 206)
        XCTAssertLessThanOrEqual(Double(sent(requests)), Double(photo.count) * 1.2, "sent \(sent(requests)) for \(photo.count)")
        XCTAssertEqual(singleRecord(r).int("bytes"), photo.count)
        XCTAssertEqual(partials(), [], "the partial goes once the body is whole")
    }

    func testAResumedThumbnailIsTheUninterruptedOne() throws {
        // The streamed decode is given the kept bytes first, then the 206's continuation.
        let r = try get([imageURL("photo.jpg", "drop=60&id=thumb"), "-s", "64", "--retry", "1", "--retry-delay", "0", "-o", file("a.jpg").path])
        assertExit(r, 0)
        let plain = try imgfetch(["get", "--cache-dir", work.appendingPathComponent("plain").path, imageURL("photo.jpg", "v=plain"),
                                  "-s", "64", "-o", file("b.jpg").path])
        assertExit(plain, 0)
        XCTAssertEqual(try Data(contentsOf: file("a.jpg")), try Data(contentsOf: file("b.jpg")))
        XCTAssertEqual(try server.requests(imagePath("photo.jpg", "drop=60&id=thumb")).last?.status, 206)
    }

    func testAGetThatTimedOutIsResumedByTheNextRun() throws {
        // 4000 bytes every 5 ms: about 0.4 s in all, cut by --timeout 0.25.
        let path = imagePath("photo.jpg", "trickle=5&id=across")
        assertExit(try get([server.url(path), "--timeout", "0.25", "-o", file("a.jpg").path]), 6)
        XCTAssertEqual(partials().count, 2, "the partial and its meta are kept")
        let r = try get([server.url(path), "-o", file("a.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(try Data(contentsOf: file("a.jpg")), photo)
        let requests = try server.requests(path)
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests.last?.status, 206, "\(requests.map(\.headers))")
        XCTAssertTrue(requests.last?.headers["range"]?.hasPrefix("bytes=") == true)
        XCTAssertLessThanOrEqual(Double(sent(requests)), Double(photo.count) * 1.2, "sent \(sent(requests)) for \(photo.count)")
        XCTAssertEqual(partials(), [])
    }

    func testAChangedETagStartsOverCleanly() throws {
        let path = imagePath("photo.jpg", "drop=60&id=changed&etag2=%22v2%22")
        let r = try get([server.url(path), "--retry", "1", "--retry-delay", "0", "-o", file("a.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(try Data(contentsOf: file("a.jpg")), photo, "the new version whole, never two versions joined")
        let requests = try server.requests(path)
        XCTAssertEqual(requests.count, 2)
        XCTAssertNotNil(requests.last?.headers["if-range"])
        XCTAssertEqual(requests.last?.status, 200, "If-Range named the old ETag: the whole body")
        XCTAssertEqual(partials(), [])
    }

    func testA206OfAnotherVersionIsNeverJoined() throws {
        // A server that ignores If-Range answers the Range with the new version's bytes (its ETag says so).
        let path = imagePath("photo.jpg", "drop=60&id=ignored&etag2=%22v2%22&ignoreifrange=1")
        let r = try get([server.url(path), "--retry", "1", "--retry-delay", "0", "-o", file("a.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(try Data(contentsOf: file("a.jpg")), photo)
        let requests = try server.requests(path)
        XCTAssertEqual(requests.map(\.status), [200, 206, 200], "the 206 of another ETag is refused and the body asked for whole")
        XCTAssertNil(requests.last?.headers["range"])
        XCTAssertEqual(partials(), [])
    }

    func testNothingIsResumedWithoutAValidator() throws {
        let path = imagePath("photo.jpg", "drop=60&id=noval&noval=1")
        assertExit(try get([server.url(path), "--retry", "1", "--retry-delay", "0", "-o", file("a.jpg").path]), 0)
        XCTAssertEqual(try Data(contentsOf: file("a.jpg")), photo)
        let requests = try server.requests(path)
        XCTAssertEqual(requests.count, 2)
        XCTAssertNil(requests.last?.headers["range"], "no validator: no Range")
        XCTAssertEqual(partials(), [])
    }

    func testAnotherVariantsPartialIsNeverUsedAndClearRemovesPartials() throws {
        let path = imagePath("photo.jpg", "trickle=5&id=variant")
        assertExit(try get([server.url(path), "-s", "64", "--timeout", "0.25", "-o", file("a.jpg").path]), 6)
        XCTAssertEqual(partials().count, 2)
        assertExit(try get([server.url(path), "--timeout", "0.25", "-o", file("b.jpg").path]), 6)
        XCTAssertNil(try server.requests(path).last?.headers["range"], "the original's download does not take the thumbnail's partial")
        XCTAssertEqual(partials().count, 4, "each kept its own")
        assertExit(try imgfetch(["cache", "clear", "--cache-dir", cacheDir.path]), 0)
        XCTAssertEqual(partials(), [], "cache clear removes partial downloads")
    }

    func testA206WithAHostileContentRangeIsRefusedNotACrash() throws {
        // Int64.min as the whole length trapped in ContentRange.init (exit 132), on every rerun too.
        let path = imagePath("photo.jpg", "drop=60&id=hostile&crtotal=-9223372036854775808")
        let r = try get([server.url(path), "--retry", "1", "--retry-delay", "0", "-o", file("a.jpg").path, "--json"])
        assertExit(r, 0)
        XCTAssertEqual(try Data(contentsOf: file("a.jpg")), photo)
        XCTAssertEqual(try server.requests(path).map(\.status), [200, 206, 200], "the 206 is refused and the body asked for whole")
        XCTAssertEqual(partials(), [])
    }
}
