import Foundation
import XCTest

/// Pictures as right as vipsthumbnail's (issue 9): colour, metadata, resampling, sizes, alpha,
/// animation, measured with scripts/fidelity.py against the true picture.
final class FidelityTests: E2ETestCase {
    func fixture(_ name: String) -> String { E2EPaths.fixture(name).path }

    func testICCTaggedSourcesComeOutAsSRGBWithoutAProfile() throws {
        for name in ["icc-adobe.jpg", "icc-prophoto.jpg", "grey-profile.jpg"] {
            for ext in ["jpg", "png"] {
                let out = file("\(name).\(ext)")
                assertExit(try get([fixture(name), "-s", "150", "-q", "95", "-o", out.path]), 0)
                assertImageFile(out, ext == "jpg" ? .jpeg : .png, width: 150, height: 100)
                let dE = try XCTUnwrap(Fidelity.measure(["delta-e", out.path, fixture(name)])["delta_e"] as? Double)
                XCTAssertLessThanOrEqual(dE, 1.5, "\(name) -> \(ext): mean ΔE00 against the true sRGB picture")
                let blocks = try XCTUnwrap(Fidelity.measure(["metadata", out.path])["blocks"] as? [String])
                XCTAssertFalse(blocks.contains { $0.hasPrefix("ICC") || $0 == "iCCP" }, "\(name) -> \(ext) carries a profile: \(blocks)")
            }
        }
    }

    func testUntaggedImageKeepsItsColours() throws {
        // libvips 8.14's export to sRGB turns an untagged white into 250,253,253: not here.
        let src = file("flat.png")
        try Fidelity.python("""
            from PIL import Image
            im = Image.new('RGB', (64, 64), (255, 255, 255)); im.paste((255, 0, 0), (0, 0, 32, 64)); im.save('\(src.path)')
            """)
        let out = file("flat-out.png")
        assertExit(try get([src.path, "-s", "32", "-o", out.path]), 0)
        let dE = try XCTUnwrap(Fidelity.measure(["delta-e", out.path, src.path])["delta_e"] as? Double)
        XCTAssertLessThan(dE, 0.5)
        let photo = file("photo.png")
        assertExit(try get([fixture("photo.jpg"), "-s", "300", "-o", photo.path]), 0)
        let dEPhoto = try XCTUnwrap(Fidelity.measure(["delta-e", photo.path, fixture("photo.jpg")])["delta_e"] as? Double)
        XCTAssertLessThan(dEPhoto, 0.5)
    }

    func testNoMetadataInAnyEncodedFormat() throws {
        let secrets = ["SecretCam", "Model X9", "SN123456789", "Jane Doe", "private comment"]
        XCTAssertTrue(secrets.allSatisfy { (try? Data(contentsOf: E2EPaths.fixture("metadata.jpg")))?.range(of: Data($0.utf8)) != nil })
        for ext in ["jpg", "png", "webp", "avif", "gif"] {
            let out = file("m.\(ext)")
            let r = try get([fixture("metadata.jpg"), "-s", "100", "-o", out.path])
            if ext == "avif", r.status == 1 { continue }  // a libvips without an AV1 encoder
            assertExit(r, 0)
            let bytes = try Data(contentsOf: out)
            for secret in secrets + ["GPS"] {
                XCTAssertNil(bytes.range(of: Data(secret.utf8)), "\(ext) output still carries \(secret)")
            }
            let blocks = try XCTUnwrap(Fidelity.measure(["metadata", out.path])["blocks"] as? [String])
            XCTAssertEqual(blocks, [], "\(ext): \(blocks)")
        }
    }

    func testOriginalIsTheSourcesOwnBytes() throws {
        let out = file("o.jpg")
        assertExit(try get([fixture("metadata.jpg"), "-f", "original", "-o", out.path]), 0)
        XCTAssertEqual(try Data(contentsOf: out), try Data(contentsOf: E2EPaths.fixture("metadata.jpg")))
    }

    func testDetailedCropAgainstItsStoredReference() throws {
        let out = file("d.jpg")
        assertExit(try get([fixture("detail.jpg"), "-s", "150", "-q", "95", "-o", out.path]), 0)
        assertImageFile(out, .jpeg, width: 150, height: 100)
        let psnr = try XCTUnwrap(Fidelity.measure(["psnr-files", out.path, fixture("detail-ref-150.png")])["psnr"] as? Double)
        XCTAssertGreaterThanOrEqual(psnr, 40, "PSNR against the float Lanczos3 reference")
    }

    func testAnimationKeepsEveryFrameOrTheFirst() throws {
        let gif = file("a.gif"), webp = file("a.webp"), still = file("a.png")
        assertExit(try get([fixture("animated.gif"), "-s", "30", "-o", gif.path]), 0)
        assertExit(try get([fixture("animated.gif"), "-s", "30", "-o", webp.path]), 0)
        assertExit(try get([fixture("animated.gif"), "-s", "30", "-o", still.path]), 0)
        assertImageFile(still, .png, width: 30, height: 20)
        let info = file("frames.json")
        try Fidelity.python("""
            import json
            from PIL import Image
            out = {}
            for p in ['\(gif.path)', '\(webp.path)']:
                im = Image.open(p)
                out[p] = [im.size, im.n_frames]
            json.dump(out, open('\(info.path)', 'w'))
            """)
        let frames = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: info)) as? [String: [Any]])
        for path in [gif.path, webp.path] {
            let f = try XCTUnwrap(frames[path])
            XCTAssertEqual(f[0] as? [Int], [30, 20], path)
            XCTAssertEqual(f[1] as? Int, 3, path)
            XCTAssertEqual(try Fidelity.vipsheader("delay", URL(fileURLWithPath: path)), "100 200 300", path)
            XCTAssertEqual(try Fidelity.vipsheader("loop", URL(fileURLWithPath: path)), "0", path)
        }
        // --max-pixels counts every frame decoded: 60x40 x 3 = 7200; a still decodes one frame.
        let refused = try get([fixture("animated.gif"), "-s", "31", "--max-pixels", "5000", "-o", file("b.gif").path])
        assertExit(refused, 7)
        XCTAssertTrue(refused.stderr.contains("3 frames"), refused.stderr)
        assertExit(try get([fixture("animated.gif"), "-s", "31", "--max-pixels", "5000", "-o", file("b.jpg").path]), 0)
        // --max-frames refuses an animation bomb from its header.
        let bomb = try get([fixture("animated.gif"), "-s", "32", "--max-frames", "2", "-o", file("c.gif").path])
        assertExit(bomb, 7)
        XCTAssertTrue(bomb.stderr.contains("3 frames, over the limit of 2"), bomb.stderr)
        assertExit(try get([fixture("animated.gif"), "-s", "32", "--max-frames", "3", "-o", file("c.gif").path]), 0)
    }

    func testTransparencyFlattensOntoWhiteOrTheBackground() throws {
        let src = file("half.png")
        try TinyPNG.rgba(width: 16, height: 16).write(to: src)   // (255, 64, 0) at alpha 128 in column 0
        for (background, expected) in [(nil, [255, 159, 127]), ("black", [128, 32, 0]), ("#0000ff", [128, 32, 127])] {
            let out = file("flat-\(background ?? "default").jpg")
            assertExit(try get([src.path, "-s", "8", "-q", "100", "-o", out.path] + (background.map { ["--background", $0] } ?? [])), 0)
            let pixel = file("pixel.json")
            try Fidelity.python("""
                import json
                from PIL import Image
                json.dump(list(Image.open('\(out.path)').convert('RGB').getpixel((0, 4))), open('\(pixel.path)', 'w'))
                """)
            let got = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: pixel)) as? [Int])
            for (g, e) in zip(got, expected) { XCTAssertLessThanOrEqual(abs(g - e), 12, "\(background ?? "default"): \(got)") }
        }
        assertExit(try get([src.path, "--background", "mauve-ish", "-o", file("x.jpg").path]), 2)
    }

    func testLinearLightResize() throws {
        // Alternating black and white rows: 128 in sRGB's gamma, 188 in linear light. RGB, as
        // vipsthumbnail --linear (libvips 8.14) leaves a one-band grey image in its gamma.
        let src = file("lines.png")
        try Fidelity.python("""
            import numpy as np
            from PIL import Image
            a = np.zeros((64, 64, 3), np.uint8); a[::2] = 255
            Image.fromarray(a).save('\(src.path)')
            """)
        for (flag, expected) in [([String](), 128.0), (["--linear"], 188.0)] {
            let out = file("lines-\(flag.count).png")
            assertExit(try get([src.path, "-s", "16", "-o", out.path] + flag), 0)
            let mean = file("mean.json")
            try Fidelity.python("""
                import json, numpy as np
                from PIL import Image
                json.dump(float(np.asarray(Image.open('\(out.path)').convert('L'), float)[2:-2, 2:-2].mean()), open('\(mean.path)', 'w'))
                """)
            let got = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: mean), options: .fragmentsAllowed) as? Double)
            XCTAssertEqual(got, expected, accuracy: 4, "\(flag)")
        }
    }

    func testRefusalsInPlainWords() throws {
        let svg = file("x.svg")
        try Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#.utf8).write(to: svg)
        let r = try get([svg.path, "-s", "5", "-o", file("x.png").path])
        assertExit(r, 1)
        XCTAssertTrue(r.stderr.contains("SVG is not accepted"), r.stderr)
        var bmp = Data("BM".utf8) + Data(repeating: 0, count: 52)
        bmp[10] = 54
        let bmpFile = file("x.bmp")
        try bmp.write(to: bmpFile)
        let b = try get([bmpFile.path, "-s", "5", "-o", file("y.png").path])
        assertExit(b, 1)
        XCTAssertTrue(b.stderr.contains("BMP is not accepted"), b.stderr)
        let u = try get([fixture("photo.jpg"), "-s", "5", "-o", file("z.tiff").path])
        assertExit(u, 2)
        XCTAssertTrue(u.stderr.contains("'.tiff' names no output format"), u.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("z.tiff").path))
    }
}
