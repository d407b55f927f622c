import Foundation
import XCTest

/// The two decode paths seen from outside: plain JPEGs take libjpeg's fast path, everything it
/// declines (EXIF rotation, CMYK, an ICC profile, other formats) goes to libvips. Either way the
/// user gets the same, correct result.
final class DecodePathTests: E2ETestCase {
    func fixture(_ name: String) -> String { E2EPaths.fixturesDir.appendingPathComponent(name).path }

    func testExifOrientationIsApplied() throws {
        // orientation6.jpg is stored 300x200 with "rotate 90" in EXIF: users see it 200x300.
        let r = try get([fixture("orientation6.jpg"), "-s", "100", "--json", "-o", file("r.jpg").path])
        assertExit(r, 0)
        assertImageFile(file("r.jpg"), .jpeg, width: 100, height: 150)
    }

    func testCMYKAndICCJpegsAreConverted() throws {
        for name in ["cmyk.jpg", "icc.jpg"] {
            let r = try get([fixture(name), "-s", "150", "-o", file("\(name).out.jpg").path])
            assertExit(r, 0)
            assertImageFile(file("\(name).out.jpg"), .jpeg, width: 150, height: 100)
        }
    }

    func testGreyscaleAndProgressiveJpegs() throws {
        assertExit(try get([fixture("grey.jpg"), "-s", "50", "-o", file("g.jpg").path]), 0)
        assertImageFile(file("g.jpg"), .jpeg, width: 50, height: 34)
        assertExit(try get([fixture("progressive.jpg"), "-s", "64", "-o", file("p.jpg").path]), 0)
        assertImageFile(file("p.jpg"), .jpeg, width: 64, height: 43)
    }

    func testAVIFOutputAndInput() throws {
        let r = try get([imageURL("photo.jpg"), "-s", "120", "-f", "avif", "--json", "-o", file("a.avif").path])
        if r.status == 1, errorCode(singleRecord(r)) == "unsupported_format" {
            throw XCTSkip("this libvips build cannot write AVIF: \(r.stderr)")
        }
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r).string("format"), "avif")
        assertImageFile(file("a.avif"), .avif, width: 120, height: 80)
        // And an AVIF source decodes (libvips' heif module, loaded through imgfetch's module directory).
        let back = try get([file("a.avif").path, "-s", "60", "-f", "png", "-o", file("b.png").path])
        assertExit(back, 0)
        assertImageFile(file("b.png"), .png, width: 60, height: 40)
    }

    /// libvips' heif module (libheif, libde265, the AV1 codecs: ~37 M instructions to open) and its jxl
    /// module are opened only for a source or output of theirs: a PNG, GIF, TIFF or WebP run never maps
    /// them (seen in the files the process opens, under strace), an AVIF output does.
    func testTheHeifAndJxlModulesOpenOnlyForTheirFormats() throws {
        let strace = URL(fileURLWithPath: "/usr/bin/strace")
        guard FileManager.default.isExecutableFile(atPath: strace.path), let binary = E2EPaths.binary else {
            throw XCTSkip("strace is needed (scripts/install-deps.sh installs it)")
        }
        func opened(_ args: [String]) throws -> String {
            // A trace file of its own per run: no earlier run (or a process it left behind) writes into it.
            let trace = file("openat-\(UUID().uuidString).txt")
            let r = ProcessRunner.run(strace, ["-f", "-q", "-o", trace.path, "-e", "trace=open,openat", binary.path, "get",
                                               "--cache-dir", cacheDir.path] + args,
                                      environment: Imgfetch.baseEnvironment(home: home), currentDirectory: work)
            assertExit(r, 0)
            return try String(contentsOf: trace, encoding: .utf8)
        }
        // (Outputs libvips writes: a PNG, WebP or GIF still made into a JPEG, PNG or WebP or by -f auto
        // loads no libvips at all, PixelSourceTests and PixelSourceJpegTests.)
        for (source, format) in [("alpha.png", "gif"), ("small.gif", "gif"), ("blue.tiff", "jpeg"), ("small.webp", "gif")] {
            let files = try opened([imageURL(source), "-s", "40", "-f", format, "-o", file("out-\(format)-\(source.prefix { $0 != "." })").path])
            XCTAssertTrue(files.contains("libvips.so.42"), "libvips decodes \(source)")
            XCTAssertFalse(files.contains("vips-heif.so"), "\(source) -> \(format) opens no heif module")
            XCTAssertFalse(files.contains("vips-jxl.so"), "\(source) -> \(format) opens no jxl module")
        }
        guard try get([imageURL("photo.jpg"), "-s", "40", "-f", "avif", "-o", file("probe.avif").path]).status == 0 else {
            throw XCTSkip("this libvips build cannot write AVIF")
        }
        let avif = try opened([imageURL("alpha.png"), "-s", "40", "-f", "avif", "-o", file("a.avif").path])
        XCTAssertTrue(avif.contains("vips-heif.so"), "an AVIF output opens the heif module")
        assertImageFile(file("a.avif"), .avif, width: 40)
    }
}
