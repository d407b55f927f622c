import Foundation
import XCTest

/// `--format`, the `-o` extension, and the source's own format as the default.
final class FormatTests: E2ETestCase {
    func testFormatPNGToStdout() throws {
        let r = try get([imageURL("photo.jpg"), "-s", "300", "-f", "png"])
        assertExit(r, 0)
        assertImage(r.stdout, .png, width: 300, height: 200)
    }

    func testFormatWebPToFileWithoutExtension() throws {
        let out = file("converted")
        let r = try get([imageURL("photo.jpg"), "-s", "300", "--format", "webp", "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .webp, width: 300, height: 200)
    }

    func testFormatJPEGFromPNG() throws {
        let r = try get([imageURL("alpha.png"), "-f", "jpeg", "-q", "80"])
        assertExit(r, 0)
        assertImage(r.stdout, .jpeg, width: 400, height: 300)
    }

    func testOutputExtensionPNGPicksPNG() throws {
        let out = file("out.png")
        let r = try get([imageURL("photo.jpg"), "-s", "300", "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .png, width: 300, height: 200)
    }

    func testOutputExtensionWebPPicksWebP() throws {
        let out = file("out.webp")
        let r = try get([imageURL("photo.jpg"), "-s", "300", "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .webp, width: 300, height: 200)
    }

    func testDefaultKeepsJPEG() throws {
        let r = try get([imageURL("photo.jpg"), "-s", "300"])
        assertExit(r, 0)
        assertImage(r.stdout, .jpeg, width: 300, height: 200)
    }

    func testDefaultKeepsPNG() throws {
        let r = try get([imageURL("alpha.png"), "-s", "200"])
        assertExit(r, 0)
        assertImage(r.stdout, .png, width: 200, height: 150)
    }

    func testDefaultKeepsWebP() throws {
        let r = try get([imageURL("small.webp"), "-s", "150"])
        assertExit(r, 0)
        assertImage(r.stdout, .webp, width: 150, height: 100)
    }

    func testFormatOriginalKeepsSourceFormat() throws {
        let r = try get([imageURL("small.webp"), "-s", "150", "-f", "original"])
        assertExit(r, 0)
        assertImage(r.stdout, .webp, width: 150, height: 100)
    }

    func testGIFSourceIsAccepted() throws {
        let out = file("out.png")
        let r = try get([imageURL("small.gif"), "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .png, width: 200, height: 150)
    }

    func testJSONFormatFieldNamesTheOutputFormat() throws {
        let out = file("out.png")
        let r = try get([imageURL("photo.jpg"), "-s", "300", "-o", out.path, "--json"])
        assertExit(r, 0)
        let record = singleRecord(r)
        XCTAssertEqual(record.string("format"), "png", "\(record)")
        XCTAssertEqual(record.int("width"), 300, "\(record)")
        XCTAssertEqual(record.int("height"), 200, "\(record)")
    }
}
