import Foundation
import XCTest

/// JPEG thumbnails of downloads are decoded while the bytes arrive. What a user can check: the
/// image is exactly the one made from the same file on disk, however the bytes trickle in; a
/// download cut off or truncated is never turned into an image or cached.
final class StreamingDecodeTests: E2ETestCase {
    func testADownloadGivesExactlyTheThumbnailOfTheSameFileOnDisk() throws {
        let cases: [(String, [String])] = [
            ("photo.jpg", ["-s", "320x320"]), ("photo.jpg", ["-s", "200x200", "--fit", "cover", "-q", "90"]),
            ("portrait.jpg", ["-s", "100"]), ("progressive.jpg", ["-s", "64"]), ("grey.jpg", ["-s", "50"]),
        ]
        for (i, (name, options)) in cases.enumerated() {
            let local = file("local-\(i).jpg"), remote = file("remote-\(i).jpg"), trickled = file("trickled-\(i).jpg")
            assertExit(try get([E2EPaths.fixture(name).path, "-o", local.path] + options), 0)
            assertExit(try get([imageURL(name, "v=\(i)"), "-o", remote.path] + options), 0)
            assertExit(try get([imageURL(name, "trickle=4&v=\(i)"), "-o", trickled.path] + options), 0)
            let expected = try Data(contentsOf: local)
            XCTAssertEqual(try Data(contentsOf: remote), expected, "\(name) \(options): downloaded at once")
            XCTAssertEqual(try Data(contentsOf: trickled), expected, "\(name) \(options): downloaded in 4000-byte pieces")
        }
    }

    func testPrefetchedThumbnailsAreThoseOfTheFilesOnDisk() throws {
        let names = ["photo.jpg", "portrait.jpg", "tiny.jpg", "progressive.jpg"]
        let list = try writeList(names.map { imageURL($0, "trickle=4") })
        assertExit(try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-s", "120x120", "-j", "4", list.path]), 0)
        for name in names {
            let local = file("local-\(name)"), cached = file("cached-\(name)")
            assertExit(try get([E2EPaths.fixture(name).path, "-s", "120x120", "-o", local.path]), 0)
            assertExit(try get([imageURL(name, "trickle=4"), "-s", "120x120", "--cache-only", "-o", cached.path]), 0)
            XCTAssertEqual(try Data(contentsOf: cached), try Data(contentsOf: local), name)
        }
    }

    func testATruncatedJPEGArrivingSlowlyIsInvalidAndNotCached() throws {
        let url = imageURL("truncated.jpg", "trickle=4")
        let r = try get([url, "-s", "100", "--json", "-o", file("o.jpg").path])
        assertExit(r, 7)
        assertFailureRecord(r, code: "invalid_image")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("o.jpg").path), "no grey image handed out")
        assertExit(try get([url, "-s", "100", "--cache-only", "-o", file("o.jpg").path]), 3)
    }

    func testADownloadCutOffMidBodyFailsAndIsNotCached() throws {
        assertExit(try get([imageURL("tiny.jpg"), "-s", "50", "-o", file("ok.jpg").path]), 0)   // an entry for verify to check
        let url = imageURL("photo.jpg", "short=20000")
        let r = try get([url, "-s", "100", "--json", "-o", file("o.jpg").path])
        assertExit(r, 6)
        let code = errorCode(singleRecord(r))
        XCTAssertNotNil(code)
        XCTAssertNotEqual(code, "invalid_image", "the transfer failed, not the image: \(r.stdout)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("o.jpg").path))
        assertExit(try get([url, "-s", "100", "--cache-only", "-o", file("o.jpg").path]), 3)
        assertExit(try imgfetch(["cache", "verify", "--cache-dir", cacheDir.path]), 0)
    }
}
