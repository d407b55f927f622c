import Foundation
import XCTest

/// JPEG sources to WebP and PNG (issue 44): decoded and resized as JPEG thumbnails are (libjpeg and
/// the own Lanczos3), the pixels encoded by libwebp or libpng, so libvips is not loaded; a derive
/// from a cached JPEG too. What the JPEG path declines still goes to libvips, and a corrupt JPEG
/// still fails. LD_DEBUG=files: the dynamic loader names every library it loads on stderr.
final class JpegPixelPathTests: E2ETestCase {
    func fixture(_ name: String) -> String { E2EPaths.fixture(name).path }

    static let outputs: [(ext: String, format: ImageInfo.Format, library: String)] = [
        ("webp", .webp, "file=libwebp.so.7"), ("png", .png, "file=libpng16.so.16"),
    ]

    func testJpegToWebPAndPNGLoadsNoLibvipsAndMatchesVipsthumbnail() throws {
        for (ext, format, library) in Self.outputs {
            let out = file("t.\(ext)"), reference = file("v.\(ext)")
            let r = try get([fixture("photo.jpg"), "-s", "320", "--json", "--cache-dir", file("c-\(ext)").path, "-o", out.path],
                            env: ["LD_DEBUG": "files"])
            assertExit(r, 0)
            XCTAssertTrue(r.stderr.contains(library), "\(ext): encoded by \(library)")
            XCTAssertTrue(r.stderr.contains("file=libjpeg.so.62"), "\(ext): decoded by libjpeg")
            XCTAssertFalse(r.stderr.contains("libvips"), "\(ext): libvips was loaded")
            let record = singleRecord(r)
            XCTAssertEqual(record.string("format"), ext)
            XCTAssertEqual([record.int("width"), record.int("height"), record.int("source_width"), record.int("source_height")],
                           [320, 213, 1200, 800])
            assertImageFile(out, format, width: 320, height: 213)
            try Fidelity.vipsthumbnail([fixture("photo.jpg"), "-s", "320", "-o", reference.path + "[strip]"])
            let psnr = try XCTUnwrap(Fidelity.measure(["psnr-files", out.path, reference.path])["psnr"] as? Double)
            XCTAssertGreaterThan(psnr, ext == "png" ? 40 : 35, "\(ext): PSNR against vipsthumbnail's")
            let ours = try XCTUnwrap(Fidelity.measure(["psnr", out.path, fixture("photo.jpg")])["psnr"] as? Double)
            let theirs = try XCTUnwrap(Fidelity.measure(["psnr", reference.path, fixture("photo.jpg")])["psnr"] as? Double)
            XCTAssertGreaterThan(ours, theirs - 0.5, "\(ext): as close to the true picture as vipsthumbnail's")
            let size = try Data(contentsOf: out).count, referenceSize = try Data(contentsOf: reference).count
            XCTAssertLessThan(abs(Double(size) / Double(referenceSize) - 1), 0.1, "\(ext): \(size) bytes, vipsthumbnail's \(referenceSize)")
            if ext == "png" {
                XCTAssertEqual(try Fidelity.vipsheader("xres", out), try Fidelity.vipsheader("xres", reference), "the same pHYs")
            }
        }
    }

    func testADeriveFromACachedJpegLoadsNoLibvips() throws {
        let cache = file("cache").path
        assertExit(try get([fixture("photo.jpg"), "-s", "600", "--cache-dir", cache, "-o", file("a.jpg").path]), 0)
        for (ext, format, library) in Self.outputs {
            let r = try get([fixture("photo.jpg"), "-s", "100", "--json", "--cache-dir", cache, "-o", file("d.\(ext)").path],
                            env: ["LD_DEBUG": "files"])
            assertExit(r, 0)
            XCTAssertEqual(singleRecord(r).string("cache"), "derived")
            XCTAssertTrue(r.stderr.contains(library), ext)
            XCTAssertFalse(r.stderr.contains("libvips"), "\(ext): libvips was loaded")
            assertImageFile(file("d.\(ext)"), format, width: 100, height: 67)
        }
    }

    func testAnHTTPJpegToWebPLoadsNoLibvips() throws {
        let r = try get([imageURL("photo.jpg"), "-s", "160", "-f", "webp", "--json", "-o", file("h.webp").path], env: ["LD_DEBUG": "files"])
        assertExit(r, 0)
        XCTAssertFalse(r.stderr.contains("libvips"), "libvips was loaded")
        assertImageFile(file("h.webp"), .webp, width: 160, height: 107)
    }

    func testCorruptAndTruncatedJpegsStillFail() throws {
        let photo = try Data(contentsOf: E2EPaths.fixture("photo.jpg"))
        try (photo.prefix(photo.count / 2) + Data([0xFF, 0xD9])).write(to: file("half.jpg"))
        for source in [fixture("truncated.jpg"), file("half.jpg").path] {
            for (ext, _, _) in Self.outputs {
                let out = file("x.\(ext)")
                let r = try get([source, "-s", "100", "--json", "-o", out.path])
                assertExit(r, 7)
                assertFailureRecord(r, code: "invalid_image")
                XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "\(source) -> \(ext): no output")
            }
        }
    }

    /// CMYK and an ICC profile are libvips' (colour conversion): still made, by libvips.
    func testCMYKAndICCJpegsStillGoToLibvips() throws {
        for name in ["cmyk.jpg", "icc.jpg"] {
            for (ext, format, _) in Self.outputs {
                let out = file("\(name).\(ext)")
                let r = try get([fixture(name), "-s", "150", "-o", out.path], env: ["LD_DEBUG": "files"])
                assertExit(r, 0)
                XCTAssertTrue(r.stderr.contains("file=libvips.so.42"), "\(name) -> \(ext): made by libvips")
                assertImageFile(out, format, width: 150, height: 100)
            }
        }
    }
}
