import Foundation
import XCTest

/// Files of public image test suites (Pillow's, av1-avif's: Tests/Fixtures/suites/README.md) that
/// other decoders show or refuse in words, and the JPEGs made from a fixture around them: what
/// imgfetch does with each, on every route (libjpeg's thumbnail, libvips', an original handed out).
final class SuiteFilesTests: E2ETestCase {
    func suite(_ name: String) -> String { E2EPaths.fixture("suites/\(name)").path }

    /// The routes a JPEG or GIF takes: a JPEG thumbnail (libjpeg alone for a plain JPEG), a PNG
    /// thumbnail (libvips), and the original handed out once proven whole.
    func routes(_ name: String, original ext: String) -> [(args: [String], format: ImageInfo.Format, out: String)] {
        [(["-s", "50"], .jpeg, "\(name)-thumb.jpg"), (["-s", "50"], .png, "\(name)-thumb.png"), ([], ext == "gif" ? .gif : .jpeg, "\(name)-as-is.\(ext)")]
    }

    // MARK: - point 7: a GIF frame reaching past the canvas

    func testAGIFFrameReachingPastTheCanvasLoads() throws {
        // libvips warns "Invalid frame data" (libnsgif clips the frame); every other decoder shows it.
        let gif = suite("test_extents_transparency.gif")
        for route in routes("extents", original: "gif") {
            let r = try get([gif, "--json", "-o", file(route.out).path] + route.args)
            assertExit(r, 0)
            let side = route.args.isEmpty ? 100 : 50
            assertImageFile(file(route.out), route.format, width: side, height: side, route.out)
        }
    }

    // MARK: - point 8: an ICC profile that does not parse

    func testAnUnreadableICCProfileCountsAsNone() throws {
        // Pillow's icc-after-SOF.jpg: a valid 10x10 grey JPEG whose "profile" is 7 bytes; libvips'
        // sRGB conversion failed on it ("VipsIcc: Read from memory error").
        let jpeg = suite("icc-after-SOF.jpg")
        for (args, format, out) in [(["-s", "5"], ImageInfo.Format.jpeg, "icc.jpg"), ([], .png, "icc.png"),
                                    (["-s", "5", "--keep-metadata", "icc"], .webp, "icc.webp")] {
            let r = try get([jpeg, "--json", "-v", "-o", file(out).path] + args)
            assertExit(r, 0)
            let side = args.isEmpty ? 10 : 5
            assertImageFile(file(out), format, width: side, height: side, out)
            let warnings = singleRecord(r)["warnings"] as? [String] ?? []
            XCTAssertEqual(warnings.count, 1, "one warning in the record:\n\(r)")
            XCTAssertTrue(warnings.first?.contains("ICC profile is 7 bytes") == true, "the record says what was ignored:\n\(r)")
            XCTAssertTrue(r.stderr.contains("warning: \(jpeg): its embedded ICC profile is 7 bytes"), "and -v's output:\n\(r)")
            // Counted as no profile: none is written, even when asked to keep it.
            XCTAssertNil(try Data(contentsOf: file(out)).range(of: Data("ICC_PROFILE".utf8)), out)
        }
    }

    // MARK: - point 10: AVIFs libheif refuses, said in words

    func testAnAVIFDeclaringTooManyPixelsGetsTheMaxPixelsRefusal() throws {
        // 550 bytes whose ispe box declares 17000x17000: libheif refuses it (over its 16384x16384)
        // before libvips has a header, which used to leave "source: bad seek to 558".
        let avif = suite("declares-17000x17000.avif")
        let r = try get([avif, "-s", "100", "--json", "-o", file("big.jpg").path])
        assertExit(r, 7)
        assertFailureRecord(r, code: "too_large")
        XCTAssertTrue(r.stderr.contains("17000x17000 is 289000000 pixels, over --max-pixels 100000000"), "\(r)")
        // Within --max-pixels, libheif's own limit is named, not the seek.
        let within = try get([avif, "-s", "100", "--max-pixels", "300000000", "-o", file("big2.jpg").path])
        assertExit(within, 7)
        XCTAssertTrue(within.stderr.contains("exceeds the maximum image size 16384x16384"), "\(within)")
        XCTAssertFalse(within.stderr.contains("bad seek"), "\(within)")
    }

    func testAMultiLayerAVIFFailureSaysWhatIsWrong() throws {
        // av1-avif's quebec_3layer_op2.avif: the header declares layer 0 (360x182), libheif 1.15
        // decodes all three layers (1436x730), and libvips gave "source: bad seek to 86661".
        let avif = suite("quebec_3layer_op2.avif")
        for (args, out) in [(["-s", "100"], "q.jpg"), ([], "q.avif")] {
            let r = try get([avif, "--json", "-o", file(out).path] + args)
            assertExit(r, 7)
            assertFailureRecord(r, code: "invalid_image")
            XCTAssertTrue(r.stderr.contains("decodes to another size than its header declares: a multi-layer AVIF"), "\(r)")
            XCTAssertFalse(r.stderr.contains("bad seek"), "\(r)")
        }
    }

    // MARK: - point 9: stray bytes before the first scan, and damage after it

    /// `bytes` inserted into `jpeg` before the first occurrence of marker `marker` (0xFF, marker).
    static func inserting(_ bytes: [UInt8], before marker: UInt8, after skip: Int = 0, in jpeg: [UInt8]) -> [UInt8] {
        var i = 2
        while i + 1 < jpeg.count, !(jpeg[i] == 0xFF && jpeg[i + 1] == marker) { i += 1 }
        precondition(i + 1 < jpeg.count, "no marker \(marker) in the fixture")
        let at = i + skip
        return Array(jpeg[..<at]) + bytes + Array(jpeg[at...])
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        try Data(bytes).write(to: file(name))
        return file(name).path
    }

    func testStrayBytesBetweenHeaderMarkersAreSkipped() throws {
        let tiny = [UInt8](try E2EPaths.fixtureData("tiny.jpg"))   // 100x67, baseline
        // Before the first DQT; and before a restart marker placed between DQT and SOF (libjpeg
        // names the marker that follows the stray bytes: "2 extraneous bytes before marker 0xd0").
        let cases: [(String, String, Int, Int)] = [
            ("stray-dqt", try write(Self.inserting(Array("junk".utf8), before: 0xDB, in: tiny), "stray-dqt.jpg"), 100, 67),
            ("stray-rst", try write(Self.inserting([0x00, 0x00, 0xFF, 0xD0], before: 0xC0, in: tiny), "stray-rst.jpg"), 100, 67),
            // Pillow's: 16 stray bytes between APP13 and APP1.
            ("photoshop", suite("photoshop-200dpi-broken.jpg"), 200, 200),
        ]
        for (name, path, width, height) in cases {
            for route in routes(name, original: "jpg") {
                let r = try get([path, "--json", "-o", file(route.out).path] + route.args)
                assertExit(r, 0)
                if route.args.isEmpty {
                    // Handed out as it is, stray bytes and all (the test's own JPEG reader would stop at them).
                    XCTAssertEqual(try Data(contentsOf: file(route.out)), try Data(contentsOf: URL(fileURLWithPath: path)), route.out)
                    XCTAssertEqual(singleRecord(r).int("width"), width, route.out)
                    XCTAssertEqual(singleRecord(r).int("height"), height, route.out)
                } else {
                    assertImageFile(file(route.out), route.format, width: 50, height: Int((Double(height) * 50 / Double(width)).rounded()), route.out)
                }
            }
        }
    }

    func testDamageInOrAfterTheFirstScanIsStillRefused() throws {
        let tiny = [UInt8](try E2EPaths.fixtureData("tiny.jpg"))
        let cases: [(String, String)] = [
            // Cut two thirds in: a truncated scan.
            ("cut", try write(Array(tiny.prefix(tiny.count * 2 / 3)), "cut.jpg")),
            // The same stray bytes as above, 40 bytes into the scan's entropy data (after SOS's 14).
            ("in-scan", try write(Self.inserting([0x00, 0x00, 0xFF, 0xD0] + Array("junk".utf8), before: 0xDA, after: 54, in: tiny), "in-scan.jpg")),
        ]
        for (name, path) in cases {
            for route in routes(name, original: "jpg") {
                let r = try get([path, "--json", "-o", file(route.out).path] + route.args)
                assertExit(r, 7)
                assertFailureRecord(r, code: "invalid_image")
                XCTAssertTrue(r.stderr.contains("libjpeg: "), "libjpeg's complaint is named:\n\(r)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: file(route.out).path), "nothing written for \(name)")
            }
        }
    }
}
