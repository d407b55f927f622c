import Foundation
import XCTest

/// PNG, WebP and GIF-still sources to JPEG and through `-f auto` without libvips (issue 44):
/// libjpeg writes the thumbnail as libvips' jpegsave would (`ifj_encode`), alpha flattened onto
/// `--background` as libvips' flatten does. Seen from outside: vipsthumbnail's size and picture,
/// libvips never loaded, damaged sources still refused.
final class PixelSourceJpegTests: E2ETestCase {
    /// Sources made from photo.jpg (1200x800) at test time: PNG RGB, RGBA (a left-to-right alpha
    /// ramp) and grey, lossy WebP, lossless WebP with alpha, a GIF still.
    func makeSources() throws -> [URL] {
        let names = ["rgb.png", "rgba.png", "grey.png", "lossy.webp", "alpha.webp", "still.gif"]
        let paths = names.map { file($0).path }
        try Fidelity.python("""
            from PIL import Image
            im = Image.open('\(E2EPaths.fixture("photo.jpg").path)').convert('RGB')
            im.save('\(paths[0])')
            a = im.copy(); a.putalpha(Image.linear_gradient('L').rotate(90).resize(im.size)); a.save('\(paths[1])')
            im.convert('L').save('\(paths[2])')
            im.save('\(paths[3])', quality=80)
            a.save('\(paths[4])', lossless=True)
            im.quantize(256).save('\(paths[5])')
            """)
        return names.map { file($0) }
    }

    /// imgfetch under strace: the shared libraries it opened, and its exit status.
    func tracedGet(_ args: [String]) throws -> (opened: String, status: Int32) {
        let strace = URL(fileURLWithPath: "/usr/bin/strace")
        guard FileManager.default.isExecutableFile(atPath: strace.path), let binary = E2EPaths.binary else {
            throw XCTSkip("strace is needed (scripts/install-deps.sh installs it)")
        }
        let trace = file("trace-\(UUID().uuidString).txt")
        let r = ProcessRunner.run(strace, ["-f", "-q", "-o", trace.path, "-e", "trace=openat", binary.path, "get",
                                           "--cache-dir", cacheDir.path] + args,
                                  environment: Imgfetch.baseEnvironment(home: home), currentDirectory: work, timeout: 120)
        return (try String(contentsOf: trace, encoding: .utf8), r.status)
    }

    func size(_ url: URL) -> Int { (try? Data(contentsOf: url).count) ?? -1 }

    func testStillSourcesToJPEGComeOutAtVipsthumbnailsSizeAndPicture() throws {
        for source in try makeSources() {
            let name = source.lastPathComponent
            let out = file("\(name).out.jpg"), refPNG = file("\(name).ref.png"), ref = file("\(name).ref.jpg")
            assertExit(try get([source.path, "-s", "150", "-o", out.path]), 0)
            // vipsthumbnail's thumbnail flattened onto white (imgfetch's default background), then
            // saved by libvips' jpegsave as imgfetch's libvips route saves it.
            try Fidelity.vipsthumbnail([source.path, "-s", "150x150", "-o", refPNG.path])
            try Fidelity.python("""
                from PIL import Image
                im = Image.open('\(refPNG.path)')
                if im.mode in ('RGBA', 'LA', 'P'):
                    im = im.convert('RGBA'); bg = Image.new('RGBA', im.size, (255, 255, 255, 255))
                    im = Image.alpha_composite(bg, im).convert('L' if '\(name)' == 'grey.png' else 'RGB')
                im.save('\(refPNG.path)')
                """)
            try Fidelity.vipsthumbnail([refPNG.path, "-s", "150x150", "-o", "\(ref.path)[Q=75,strip]"])
            let expected = try XCTUnwrap(ImageInfo(file: ref), "\(name): the reference")
            assertImageFile(out, .jpeg, width: expected.width, height: expected.height)
            let psnr = try XCTUnwrap(Fidelity.measure(["psnr-files", out.path, ref.path])["psnr"] as? Double)
            XCTAssertGreaterThanOrEqual(psnr, 32, "\(name) -> jpeg: PSNR against vipsthumbnail")
            XCTAssertEqual(Double(size(out)), Double(size(ref)), accuracy: Double(size(ref)) * 0.1, "\(name): file size")
        }
    }

    func testJPEGAndAutoNeverLoadLibvips() throws {
        for source in try makeSources() {
            // (A .gif named source to -f jpeg still has libvips loaded ahead: the route does not tell
            // -f jpeg from -f original, which writes a GIF with libvips.)
            for format in ["jpeg", "auto"] where !(format == "jpeg" && source.pathExtension == "gif") {
                let out = file("\(source.lastPathComponent.replacingOccurrences(of: ".", with: "_"))-\(format)\(format == "jpeg" ? ".jpg" : "")")
                let traced = try tracedGet([source.path, "-s", "150", "-f", format, "-o", out.path])
                XCTAssertEqual(traced.status, 0)
                XCTAssertFalse(traced.opened.contains("libvips.so"), "\(source.lastPathComponent) -> \(format) loaded libvips")
            }
        }
    }

    func testAlphaIsFlattenedOntoTheBackground() throws {
        // Left half fully transparent (blue under it), right half opaque green.
        let src = file("half.png"), out = file("half.jpg")
        try Fidelity.python("""
            from PIL import Image
            im = Image.new('RGBA', (400, 200), (0, 0, 255, 0))
            im.paste((0, 255, 0, 255), (200, 0, 400, 200))
            im.save('\(src.path)')
            """)
        assertExit(try get([src.path, "-s", "100", "--background", "red", "-o", out.path]), 0)
        assertImageFile(out, .jpeg, width: 100, height: 50)
        try Fidelity.python("""
            from PIL import Image
            im = Image.open('\(out.path)').convert('RGB')
            for (x, want) in ((10, (255, 0, 0)), (90, (0, 255, 0))):
                got = im.getpixel((x, 25))
                assert all(abs(g - w) <= 8 for g, w in zip(got, want)), f'x={x}: {got}, want {want}'
            """)
    }

    func testAutoPicksTheSmallestCandidateAndKeepsTransparency() throws {
        let sources = try makeSources()
        for (source, allowed) in [(sources[0], ["jpeg", "webp"]), (sources[1], ["png", "webp"])] {
            let auto = file("\(source.lastPathComponent.replacingOccurrences(of: ".", with: "_"))-auto")
            let r = try get([source.path, "-s", "150", "-f", "auto", "-o", auto.path, "--json"])
            assertExit(r, 0)
            let format = try XCTUnwrap(singleRecord(r).string("format"))
            XCTAssertTrue(allowed.contains(format), "\(source.lastPathComponent): \(format)")
            for other in allowed {
                let one = file("\(source.lastPathComponent).one.\(other == "jpeg" ? "jpg" : other)")
                assertExit(try get([source.path, "-s", "150", "-o", one.path]), 0)
                XCTAssertLessThanOrEqual(size(auto), size(one), "\(source.lastPathComponent): auto against \(other)")
            }
        }
        // A transparent picture and only JPEG accepted fails cleanly, as before (libvips' verdict).
        assertExit(try get([sources[1].path, "-s", "150", "-f", "auto", "--accept", "jpeg", "-o", file("x").path]), 1)
    }

    func testDamagedSourcesToJPEGFailAsBefore() throws {
        let sources = try makeSources()
        let png = try Data(contentsOf: sources[0]), webp = try Data(contentsOf: sources[3])
        var crc = png
        crc[crc.count / 2] ^= 0x5A
        for (name, bytes) in [("cut.png", png.prefix(png.count * 6 / 10)), ("crc.png", crc),
                              ("cut.webp", webp.prefix(webp.count * 6 / 10))] {
            try Data(bytes).write(to: file(name))
            let r = try get([file(name).path, "-s", "100", "-f", "jpeg", "--json", "-o", file("\(name.replacingOccurrences(of: ".", with: "_")).jpg").path])
            assertExit(r, 7)
            XCTAssertEqual(errorCode(singleRecord(r)), "invalid_image", "\(name): \(r.stderr)")
            // -f auto: libvips' verdict as before (a refusal in its header check is invalid_image, one
            // in its thumbnail a candidate failure, unsupported_format); never a picture.
            let out = file("\(name.replacingOccurrences(of: ".", with: "_"))-auto")
            let auto = try get([file(name).path, "-s", "100", "-f", "auto", "--json", "-o", out.path])
            XCTAssertTrue(auto.status == 7 || auto.status == 1, "\(name) -> auto: \(auto)")
            XCTAssertTrue(["invalid_image", "unsupported_format"].contains(errorCode(singleRecord(auto)) ?? ""), "\(name) -> auto: \(auto.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), name)
        }
    }
}
