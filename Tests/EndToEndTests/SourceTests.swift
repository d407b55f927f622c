import Foundation
import XCTest

/// SOURCE forms other than http(s): plain paths, file:// URLs, data: URLs.
final class SourceTests: E2ETestCase {
    func testAbsolutePlainPath() throws {
        let out = file("out.jpg")
        let r = try get([E2EPaths.fixture("photo.jpg").path, "-s", "300", "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .jpeg, width: 300, height: 200)
        XCTAssertEqual(try server.totalRequests(), 0)
    }

    func testRelativePlainPath() throws {
        try FileManager.default.copyItem(at: E2EPaths.fixture("tiny.jpg"), to: file("local.jpg"))
        let out = file("out.png")
        let r = try get(["local.jpg", "-o", out.path])  // relative to the working directory
        assertExit(r, 0)
        assertImageFile(out, .png, width: 100, height: 67)
    }

    func testFileURL() throws {
        let source = E2EPaths.fixture("portrait.jpg").absoluteURL.absoluteString  // file:///…
        XCTAssertTrue(source.hasPrefix("file:///"))
        let out = file("out.jpg")
        let r = try get([source, "-s", "x400", "-o", out.path, "--json"])
        assertExit(r, 0)
        assertImageFile(out, .jpeg, width: 300, height: 400)
        let record = singleRecord(r)
        XCTAssertEqual(record.string("status"), "ok", "\(record)")
        // The same file, whether echoed as the URL or as its path.
        let echoed = record.string("original_source")
        XCTAssertTrue(echoed == source || echoed == E2EPaths.fixture("portrait.jpg").path,
                      "original_source names the file: \(record)")
    }

    func testFileSourceIsCached() throws {
        let source = E2EPaths.fixture("photo.jpg").path
        assertExit(try get([source, "-s", "100", "-o", file("a.jpg").path]), 0)
        let r = try get([source, "-s", "100", "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r).string("cache"), "hit")
    }

    func testDataURLPNG() throws {
        // alpha.png itself (336 KB) is too big for one argv string (Linux MAX_ARG_STRLEN is
        // 128 KiB), so the data: URL carries a small RGBA PNG built by the test.
        let png = TinyPNG.rgba(width: 40, height: 30)
                let source = "data:image/png;base64," + png.base64EncodedString()
        let out = file("out.png")
        let r = try get([source, "-o", out.path, "--json"])
        assertExit(r, 0)
        assertImageFile(out, .png, width: 40, height: 30)
        let record = singleRecord(r)
        XCTAssertEqual(record.string("status"), "ok", "\(record)")
        XCTAssertEqual(record.int("width"), 40, "\(record)")
    }

    func testDataURLJPEGResized() throws {
        let jpeg = try E2EPaths.fixtureData("tiny.jpg")
        let source = "data:image/jpeg;base64," + jpeg.base64EncodedString()
        let r = try get([source, "-s", "60"])
        assertExit(r, 0)
        assertImage(r.stdout, .jpeg, width: 60, height: 40)
    }

    func testMissingLocalFileFails() throws {
        let missing = root.appendingPathComponent("no-such-image.jpg").path
        let r = try get([missing, "-o", file("o.jpg").path])
        assertExit(r, 1)
        assertOneErrorLine(r, containing: missing)
    }
}
