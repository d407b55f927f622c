import Foundation
import XCTest

/// PNG, WebP and GIF-still sources made into thumbnails without libvips (issue 44): libpng, libwebp
/// or giflib decode, the own Lanczos3 resizes, libpng or libwebp encodes. Seen from outside: the
/// same sizes and nearly the same pixels as vipsthumbnail, clean alpha edges, libvips never loaded
/// for a plain source, and everything the decoders decline (16 bits, an ICC profile, damage) still
/// handled by libvips as before.
final class PixelSourceTests: E2ETestCase {
    func fixture(_ name: String) -> String { E2EPaths.fixture(name).path }

    /// Sources made from photo.jpg (1200x800) at test time: PNG RGB, RGBA and grey, lossy WebP,
    /// lossless WebP with alpha, a GIF still.
    func makeSources() throws -> [URL] {
        let names = ["rgb.png", "rgba.png", "grey.png", "lossy.webp", "alpha.webp", "still.gif"]
        let paths = names.map { file($0).path }
        try Fidelity.python("""
            from PIL import Image
            im = Image.open('\(fixture("photo.jpg"))').convert('RGB')
            im.save('\(paths[0])')
            a = im.copy(); a.putalpha(Image.linear_gradient('L').resize(im.size)); a.save('\(paths[1])')
            im.convert('L').save('\(paths[2])')
            im.save('\(paths[3])', quality=80)
            a.save('\(paths[4])', lossless=True)
            im.quantize(256).save('\(paths[5])')
            """)
        return names.map { file($0) }
    }

    /// imgfetch under strace: the paths of the shared libraries it opened, and its result.
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

    func testEachSourceFormatComesOutAtVipsthumbnailsSizeAndPicture() throws {
        for source in try makeSources() {
            for ext in ["png", "webp"] {
                let name = source.lastPathComponent
                let out = file("\(name).out.\(ext)"), ref = file("\(name).ref.\(ext)")
                assertExit(try get([source.path, "-s", "150", "-o", out.path]), 0)
                try Fidelity.vipsthumbnail([source.path, "-s", "150x150", "-o", ref.path])
                let expected = try XCTUnwrap(ImageInfo(file: ref), "\(name) -> \(ext): vipsthumbnail's output")
                assertImageFile(out, ext == "png" ? .png : .webp, width: expected.width, height: expected.height)
                // PSNR against vipsthumbnail's own thumbnail (two resizes, two encoders for WebP).
                let psnr = try XCTUnwrap(Fidelity.measure(["psnr-files", out.path, ref.path])["psnr"] as? Double)
                XCTAssertGreaterThanOrEqual(psnr, ext == "png" ? 40 : 34, "\(name) -> \(ext): PSNR against vipsthumbnail")
            }
        }
    }

    func testPlainSourcesNeverLoadLibvips() throws {
        for source in try makeSources() {
            let traced = try tracedGet([source.path, "-s", "150", "-f", "png", "-o", file("\(source.lastPathComponent).png").path])
            XCTAssertEqual(traced.status, 0)
            XCTAssertFalse(traced.opened.contains("libvips.so"), "\(source.lastPathComponent) -> png loaded libvips")
        }
    }

    func testASourceAlreadyInTheFormatAskedForIsHandedOutAsItIs() throws {
        for source in try makeSources() where ["png", "webp"].contains(source.pathExtension) {
            let out = file("same-\(source.lastPathComponent)")
            assertExit(try get([source.path, "-f", source.pathExtension, "-o", out.path]), 0)
            XCTAssertEqual(try Data(contentsOf: out), try Data(contentsOf: source), "\(source.lastPathComponent): its own bytes")
        }
    }

    func testTransparentHardEdgeHasNoDarkFringe() throws {
        // Opaque white on fully transparent black: a resize that does not premultiply by alpha
        // mixes the invisible black into the edge, which then shows dark on any background.
        let src = file("edge.png"), out = file("edge-out.png")
        try Fidelity.python("""
            from PIL import Image, ImageDraw
            im = Image.new('RGBA', (400, 300), (0, 0, 0, 0))
            ImageDraw.Draw(im).rectangle([101, 77, 298, 221], fill=(255, 255, 255, 255))
            im.save('\(src.path)')
            """)
        assertExit(try get([src.path, "-s", "150", "-o", out.path]), 0)
        assertImageFile(out, .png, width: 150, height: 113)
        try Fidelity.python("""
            from PIL import Image
            px = list(Image.open('\(out.path)').convert('RGBA').getdata())
            edge = [p for p in px if 8 <= p[3] < 255]
            assert edge, 'no partly transparent edge pixels'
            dark = [p for p in edge if min(p[:3]) < 250]
            assert not dark, f'{len(dark)} of {len(edge)} edge pixels darkened, e.g. {dark[:3]}'
            """)
    }

    func testDamagedSourcesFailAsBefore() throws {
        let sources = try makeSources()
        let png = try Data(contentsOf: sources[0]), webp = try Data(contentsOf: sources[3])
        var crc = png
        crc[crc.count / 2] ^= 0x5A   // inside IDAT: a critical chunk's CRC fails
        let damaged: [(String, Data)] = [
            ("cut.png", png.prefix(png.count * 6 / 10)), ("crc.png", crc),
            ("cut.webp", webp.prefix(webp.count * 6 / 10)),
        ]
        // (A GIF libvips refuses is not among them: libvips 8.14 refuses one with an invalid LZW code
        // on some runs only, its tile threads racing; CDecoders declines it, as libnsgif's rules say.)
        for (name, bytes) in damaged {
            try bytes.write(to: file(name))
            let r = try get([file(name).path, "-s", "100", "-f", "png", "--json", "-o", file("\(name).png").path])
            assertExit(r, 7)
            XCTAssertEqual(errorCode(singleRecord(r)), "invalid_image", "\(name): \(r.stderr)")
        }
    }

    func testAPNGWithAWrongZlibChecksumIsDecodedAsLibvipsDecodesIt() throws {
        // libvips 8.14 does not check zlib's Adler-32 (the chunks' CRCs it does): neither does libpng here.
        let source = file("adler.png"), out = file("adler-out.png"), ref = file("adler-ref.png")
        try Fidelity.python("""
            import struct, zlib
            from PIL import Image
            Image.open('\(fixture("photo.jpg"))').convert('RGB').save('\(source.path)')
            b = bytearray(open('\(source.path)', 'rb').read())
            pos, last = 8, None
            while pos < len(b):
                n = struct.unpack('>I', b[pos:pos + 4])[0]
                if b[pos + 4:pos + 8] == b'IDAT': last = (pos, n)
                pos += 12 + n
            p, n = last
            b[p + 8 + n - 1] ^= 0xFF   # the Adler-32's last byte ends the last IDAT
            b[p + 8 + n:p + 12 + n] = struct.pack('>I', zlib.crc32(bytes(b[p + 4:p + 8 + n])) & 0xffffffff)
            open('\(source.path)', 'wb').write(b)
            """)
        let traced = try tracedGet([source.path, "-s", "150", "-f", "png", "-o", out.path])
        XCTAssertEqual(traced.status, 0)
        XCTAssertFalse(traced.opened.contains("libvips.so"), "a wrong Adler-32 sent the PNG to libvips")
        try Fidelity.vipsthumbnail([source.path, "-s", "150x150", "-o", ref.path])
        let expected = try XCTUnwrap(ImageInfo(file: ref))
        assertImageFile(out, .png, width: expected.width, height: expected.height)
        let psnr = try XCTUnwrap(Fidelity.measure(["psnr-files", out.path, ref.path])["psnr"] as? Double)
        XCTAssertGreaterThanOrEqual(psnr, 40, "PSNR against vipsthumbnail")
    }

    func testABatchDecodesWebPAsASingleGetDoes() throws {
        // A batch decodes WebP on one thread per image, a single `get` with libwebp's own thread too:
        // the same thumbnails byte for byte, and the same refusal of a damaged one.
        let sources = try makeSources()
        let cut = file("cut.webp")
        try Data(contentsOf: sources[3]).prefix(12_000).write(to: cut)
        let webps = [sources[3], sources[4], cut]
        let batch = file("batch")
        let list = try writeList(webps.map(\.path), name: "webps.txt")
        let r = try imgfetch(["prefetch", "--cache-dir", file("batch-cache").path, list.path, "-s", "150", "-f", "png",
                              "--output-dir", batch.path, "--create-dirs", "--name", "{line}.png", "--json"])
        assertExit(r, 1)
        for (i, source) in webps.enumerated() {
            let single = file("single-\(i).png")
            let one = try get([source.path, "-s", "150", "-f", "png", "-o", single.path])
            let line = try XCTUnwrap(r.json.first { $0.string("source")?.hasSuffix(source.lastPathComponent) == true })
            if source == cut {
                assertExit(one, 7)
                XCTAssertEqual(line.string("status"), "failed", "the damaged WebP in the batch")
            } else {
                assertExit(one, 0)
                XCTAssertEqual(try Data(contentsOf: batch.appendingPathComponent("\(i + 1).png")), try Data(contentsOf: single),
                               "\(source.lastPathComponent): the batch's thumbnail against a single get's")
            }
        }
    }

    func testSixteenBitAndICCSourcesStillGoThroughLibvips() throws {
        let deep = file("deep.png"), tagged = file("tagged.png")
        try Fidelity.python("""
            from PIL import Image
            import numpy as np
            im = Image.open('\(fixture("photo.jpg"))').convert('RGB')
            a = np.asarray(im).astype(np.uint16) * 257
            Image.fromarray(a[:, :, 1], 'I;16').save('\(deep.path)')
            src = Image.open('\(fixture("icc-adobe.jpg"))')
            src.save('\(tagged.path)', icc_profile=src.info['icc_profile'])
            """)
        for source in [deep, tagged] {
            let out = file("\(source.lastPathComponent).out.png")
            let traced = try tracedGet([source.path, "-s", "150", "-o", out.path])
            XCTAssertEqual(traced.status, 0)
            XCTAssertTrue(traced.opened.contains("libvips.so"), "\(source.lastPathComponent) is libvips' to decode")
            assertImageFile(out, .png, width: 150, height: 100)
        }
        // The profile is applied (the picture converted to sRGB), as before.
        let dE = try XCTUnwrap(Fidelity.measure(["delta-e", file("tagged.png.out.png").path, fixture("icc-adobe.jpg")])["delta_e"] as? Double)
        XCTAssertLessThanOrEqual(dE, 1.5)
    }
}
