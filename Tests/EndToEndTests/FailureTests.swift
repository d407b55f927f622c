import Foundation
import XCTest

/// Sources that fail: HTTP errors, invalid images (never cached), unsafe redirects.
final class FailureTests: E2ETestCase {
    func testHTTP404Exits5WithOneLineNamingTheURL() throws {
        let url = server.url("/status/404")
        let r = try get([url, "-o", file("o.jpg").path])
        assertExit(r, 5)
        assertOneErrorLine(r, containing: url)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("o.jpg").path), "no output file on failure")
    }

    func testHTTP404JSONCodeHTTPStatus() throws {
        let url = server.url("/status/404")
        let r = try get([url, "--json", "-o", file("o.jpg").path])
        assertExit(r, 5)
        assertFailureRecord(r, code: "http_status")
        let record = singleRecord(r)
        XCTAssertEqual(record.string("original_source"), url, "\(record)")
    }

    func testHTTP404IsNotRetried() throws {
        let r = try get([server.url("/status/404"), "--retry", "3", "--retry-delay", "0.1", "-o", file("o.jpg").path])
        assertExit(r, 5)
        XCTAssertEqual(try server.requestCount("/status/404"), 1, "4xx is fatal: no retry")
    }

    func testHTTP500Fails() throws {
        let r = try get([server.url("/status/500"), "--retry", "0", "--json", "-o", file("o.jpg").path])
        assertExit(r, 5)
        assertFailureRecord(r, code: "http_status")
    }

    private func assertInvalidAndNotCached(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = imageURL(name)
        let path = imagePath(name)
        let first = try get([url, "--json", "-o", self.file("o.jpg").path])
        assertExit(first, 7, file: file, line: line)
        assertFailureRecord(first, code: "invalid_image", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: self.file("o.jpg").path),
                       "no output file for an invalid image", file: file, line: line)

        // Nothing was cached: --cache-only misses, and a new get goes to the network again.
        let cacheOnly = try get([url, "--cache-only", "-o", self.file("o.jpg").path])
        assertExit(cacheOnly, 3, file: file, line: line)
        let served = try E2EPaths.fixtureData(name)
        if !served.isEmpty {
            for cached in regularFiles(under: cacheDir) {
                XCTAssertNotEqual(try? Data(contentsOf: cached), served,
                                  "the invalid bytes were stored in the cache: \(cached.path)", file: file, line: line)
            }
        }
        let second = try get([url, "-o", self.file("o.jpg").path])
        assertExit(second, 7, file: file, line: line)
        XCTAssertEqual(try server.requestCount(path), 2, "the second run requested it again", file: file, line: line)
        XCTAssertEqual(second.stderrLines.count, 1, "one error line:\n\(second)", file: file, line: line)
        XCTAssertTrue(second.stderr.contains(url), "stderr names the source:\n\(second)", file: file, line: line)
    }

    func testTruncatedJPEGIsInvalidAndNotCached() throws {
        try assertInvalidAndNotCached("truncated.jpg")
    }

    func testEmptyFileIsInvalidAndNotCached() throws {
        try assertInvalidAndNotCached("empty.jpg")
    }

    func testHTMLPageIsInvalidAndNotCached() throws {
        try assertInvalidAndNotCached("page.html")
    }

    func testTruncatedLocalFileIsInvalid() throws {
        let r = try get([E2EPaths.fixture("truncated.jpg").path, "--json", "-o", file("o.jpg").path])
        assertExit(r, 7)
        assertFailureRecord(r, code: "invalid_image")
    }

    func testInvalidImageIsNotRetried() throws {
        let r = try get([imageURL("page.html"), "--retry", "3", "--retry-delay", "0.1", "-o", file("o.jpg").path])
        assertExit(r, 7)
        XCTAssertEqual(try server.requestCount(imagePath("page.html")), 1)
    }

    func testRedirectToFileURLIsRefused() throws {
        let url = server.url("/redirect?to=file:///etc/passwd")
        let r = try get([url])
        assertExit(r, 1)
        XCTAssertFalse(r.stdoutText.contains("root:"), "the content of /etc/passwd leaked:\n\(r)")
        XCTAssertTrue(r.stdout.isEmpty, "nothing on stdout:\n\(r)")
        XCTAssertEqual(r.stderrLines.count, 1, "one error line:\n\(r)")
    }

    /// A server's text (here a redirect's Location with terminal escape sequences) never reaches the
    /// terminal as control characters: the location is refused without being repeated.
    func testServerTextInErrorLinesCannotDriveTheTerminal() throws {
        let evil = server.url("/redirect?to=ftp://x%1B%5D0;owned%07%1B%5B2J")
        let r = try get([evil])
        assertExit(r, 1)
        XCTAssertTrue(r.stderr.contains("redirect to an invalid location"), r.stderr)
        XCTAssertFalse(r.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, r.stderr)
        let list = try writeList([evil, evil + "&again=1"])
        let p = try imgfetch(["prefetch", "--no-progress", "--cache-dir", file("c").path, list.path])
        assertExit(p, 1)
        XCTAssertTrue(p.stderr.contains("2 failed"), p.stderr)
        XCTAssertFalse(p.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, p.stderr)
    }

    func testRedirectToFileURLIsRefusedWithJSON() throws {
        let r = try get([server.url("/redirect?to=file:///etc/passwd"), "--json", "-o", file("o.jpg").path])
        assertExit(r, 1)
        let record = singleRecord(r)
        XCTAssertEqual(record.string("status"), "failed", "\(record)")
        XCTAssertNotNil(errorCode(record), "an error code: \(record)")
        XCTAssertFalse(r.stdoutText.contains("root:"))
        let written = (try? String(contentsOf: file("o.jpg"), encoding: .utf8)) ?? ""
        XCTAssertFalse(written.contains("root:"), "the content of /etc/passwd was written out")
    }

    func testRedirectWithinHTTPIsFollowed() throws {
        let r = try get([server.url("/redirect?to=/img/photo.jpg"), "-s", "300"])
        assertExit(r, 0)
        assertImage(r.stdout, .jpeg, width: 300, height: 200)
        XCTAssertEqual(try server.requestCount("/img/photo.jpg"), 1)
    }

    func testConnectionRefusedFails() throws {
        // A port nothing listens on: the server's own, once stopped.
        let url = server.url("/img/photo.jpg")
        server.stop()
        let r = try get([url, "--retry", "0", "-o", file("o.jpg").path], timeout: 20)
        assertExit(r, 6)
        assertOneErrorLine(r, containing: url)
    }
}
