import Foundation
import XCTest

/// `--crop`, `--sharpen`, `--upscale`, `--keep-metadata` and `--allow-jxl` (issue 24), against real
/// pictures made here, read back with vipsthumbnail, scripts/fidelity.py and exiftool.
final class ThumbnailOptionTests: E2ETestCase {
    /// A 900x300 JPEG: a flat, dull gradient with a skin-coloured, textured disc at its right edge.
    func subjectAtTheEdge() throws -> URL {
        let src = file("edge.jpg")
        try Fidelity.python("""
            import numpy as np
            from PIL import Image, ImageDraw
            w, h = 900, 300
            x = np.linspace(0, 1, w)[None, :, None]
            img = (np.array([150, 160, 170]) + 20 * x).repeat(h, axis=0)
            im = Image.fromarray(img.astype('uint8'), 'RGB')
            d = ImageDraw.Draw(im)
            d.ellipse((760, 90, 880, 210), fill=(224, 172, 140))
            for i in range(0, 120, 12):
                d.line((760 + i, 100, 770 + i, 200), fill=(120, 60, 40), width=3)
            im.save('\(src.path)', quality=95)
            """)
        return src
    }

    /// Pixels of the disc's skin colour in a picture.
    func skinPixels(_ url: URL) throws -> Int {
        let out = file("count.json")
        try Fidelity.python("""
            import json, numpy as np
            from PIL import Image
            a = np.asarray(Image.open('\(url.path)').convert('RGB')).astype(int)
            n = int(((abs(a[..., 0] - 224) < 20) & (abs(a[..., 1] - 172) < 20) & (abs(a[..., 2] - 140) < 20)).sum())
            json.dump({'n': n}, open('\(out.path)', 'w'))
            """)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any]
        return try XCTUnwrap(object?["n"] as? Int)
    }

    func testCropAttentionKeepsTheSubjectAtTheEdgeAsVipsthumbnailDoes() throws {
        let src = try subjectAtTheEdge()
        let centre = file("centre.png"), attention = file("attention.png"), theirs = file("vips-attention.png")
        assertExit(try get([src.path, "-s", "200x200", "--fit", "cover", "-o", centre.path]), 0)
        assertExit(try get([src.path, "-s", "200x200", "--fit", "cover", "--crop", "attention", "-o", attention.path]), 0)
        try Fidelity.vipsthumbnail([src.path, "-s", "200x200>", "--smartcrop", "attention", "-o", theirs.path])
        assertImageFile(attention, .png, width: 200, height: 200)
        XCTAssertEqual(try skinPixels(centre), 0, "the centre crop cuts the subject off")
        XCTAssertGreaterThan(try skinPixels(attention), 2000, "attention keeps the subject")
        // The same window as vipsthumbnail's: the JPEG source went to libvips, not to libjpeg's centre crop.
        let ours = try Fidelity.measure(["window", attention.path, src.path])
        let reference = try Fidelity.measure(["window", theirs.path, src.path])
        XCTAssertEqual(ours["x"] as? Int, reference["x"] as? Int, "crop window \(ours) vs vipsthumbnail's \(reference)")
        XCTAssertEqual(ours["y"] as? Int, reference["y"] as? Int)
        let psnr = try Fidelity.measure(["psnr-files", attention.path, theirs.path])["psnr"] as? Double
        XCTAssertGreaterThanOrEqual(psnr ?? 0, 45, "the same pixels as vipsthumbnail --smartcrop attention")
    }

    func testCropEntropyIsItsOwnVariantAndCentreIsTheDefaultsKey() throws {
        let src = try subjectAtTheEdge()
        let a = file("a.jpg")
        assertExit(try get([src.path, "-s", "200x200", "--fit", "cover", "-o", a.path, "--json"]), 0)
        let centre = singleRecord(try get([src.path, "-s", "200x200", "--fit", "cover", "--crop", "centre", "-o", a.path, "--json"]))
        XCTAssertEqual(centre.string("cache"), "hit", "--crop centre is the default: the same entry")
        let entropy = singleRecord(try get([src.path, "-s", "200x200", "--fit", "cover", "--crop", "entropy", "-o", a.path, "--json"]))
        XCTAssertEqual(entropy.string("cache"), "derived", "another crop is another variant")
        XCTAssertNotEqual(entropy.string("key"), centre.string("key"))
        XCTAssertGreaterThan(try skinPixels(a), 1000, "entropy keeps the busy subject too")
    }

    func testCropAndCoverNeedTheirBox() throws {
        let src = E2EPaths.fixture("photo.jpg").path
        let out = file("x.jpg").path
        let cases: [([String], String)] = [
            (["-s", "200x200", "--crop", "attention"], "--crop needs --fit cover"),
            (["-s", "200", "--fit", "cover"], "--fit cover needs both sides"),
            (["-s", "x200", "--fit", "cover"], "--fit cover needs both sides"),
            (["-s", "200x200", "--fit", "cover", "--crop", "left"], "'--crop'"),
            (["-s", "200", "--keep-metadata", "gps"], "'--keep-metadata'"),
        ]
        for (args, message) in cases {
            let r = try get([src] + args + ["-o", out])
            assertExit(r, 2)
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testSharpenMakesTheThumbnailMeasurablyCrisper() throws {
        let plain = file("plain.png"), sharp = file("sharp.png")
        assertExit(try get([imageURL("photo.jpg"), "-s", "320", "-o", plain.path]), 0)
        assertExit(try get([imageURL("photo.jpg"), "-s", "320", "--sharpen", "-o", sharp.path]), 0)
        assertImageFile(sharp, .png, width: 320, height: 213)
        let a = try Fidelity.measure(["sharpness", plain.path]), b = try Fidelity.measure(["sharpness", sharp.path])
        let (ga, gb) = (try XCTUnwrap(a["gradient"] as? Double), try XCTUnwrap(b["gradient"] as? Double))
        let (la, lb) = (try XCTUnwrap(a["laplacian_var"] as? Double), try XCTUnwrap(b["laplacian_var"] as? Double))
        XCTAssertGreaterThan(gb, ga * 1.02, "mean gradient magnitude, sharpened vs not")
        XCTAssertGreaterThan(lb, la * 1.2, "variance of the Laplacian, sharpened vs not")
        // Still the same picture: close to the unsharpened one.
        let psnr = try XCTUnwrap(Fidelity.measure(["psnr-files", sharp.path, plain.path])["psnr"] as? Double)
        XCTAssertGreaterThan(psnr, 30)
        // A JPEG output of a JPEG source goes to libvips too (libjpeg's path does not sharpen).
        let j1 = file("p.jpg"), j2 = file("s.jpg")
        assertExit(try get([imageURL("photo.jpg", "j"), "-s", "320", "-o", j1.path]), 0)
        assertExit(try get([imageURL("photo.jpg", "j"), "-s", "320", "--sharpen", "-o", j2.path]), 0)
        let gj1 = try XCTUnwrap(Fidelity.measure(["sharpness", j1.path])["gradient"] as? Double)
        let gj2 = try XCTUnwrap(Fidelity.measure(["sharpness", j2.path])["gradient"] as? Double)
        XCTAssertGreaterThan(gj2, gj1 * 1.02)
    }

    func testUpscaleEnlargesOnlyWhenAsked() throws {
        let small = file("small.jpg"), big = file("big.jpg"), cover = file("cover.png")
        assertExit(try get([imageURL("tiny.jpg"), "-s", "500x500", "-o", small.path]), 0)
        assertImageFile(small, .jpeg, width: 100, height: 67)
        assertExit(try get([imageURL("tiny.jpg"), "-s", "500x500", "--upscale", "-o", big.path]), 0)
        assertImageFile(big, .jpeg, width: 500, height: 335)
        assertExit(try get([imageURL("tiny.jpg"), "-s", "300x300", "--fit", "cover", "--upscale", "-o", cover.path]), 0)
        assertImageFile(cover, .png, width: 300, height: 300)
        // As vipsthumbnail enlarges (no '>' in its size).
        let theirs = file("vips-big.png"), ours = file("big.png")
        assertExit(try get([imageURL("tiny.jpg"), "-s", "500x500", "--upscale", "-o", ours.path]), 0)
        try Fidelity.vipsthumbnail([E2EPaths.fixture("tiny.jpg").path, "-s", "500x500", "-o", theirs.path])
        let psnr = try Fidelity.measure(["psnr-files", ours.path, theirs.path])["psnr"] as? Double
        XCTAssertGreaterThanOrEqual(psnr ?? 0, 40, "the enlargement vipsthumbnail makes")
        // An enlargement counts against --max-pixels before anything is decoded.
        let r = try get([imageURL("tiny.jpg"), "-s", "5000x5000", "--upscale", "--max-pixels", "1M", "--json", "-o", file("huge.jpg").path])
        assertExit(r, 7)
        assertFailureRecord(r, code: "too_large")
    }

    /// photo.jpg with a photographer's copyright and everything that must not leave: GPS, a camera
    /// serial, a maker, an XMP description.
    func taggedPhoto() throws -> URL {
        let src = file("tagged.jpg")
        try FileManager.default.copyItem(at: E2EPaths.fixture("photo.jpg"), to: src)
        try Fidelity.exiftoolWrite(["-q", "-overwrite_original",
                                    "-EXIF:Copyright=(c) 2026 Jane Photographer, all rights reserved", "-EXIF:Artist=Jane Photographer",
                                    "-EXIF:GPSLatitude=48.8584", "-EXIF:GPSLatitudeRef=N", "-EXIF:GPSLongitude=2.2945", "-EXIF:GPSLongitudeRef=E",
                                    "-EXIF:SerialNumber=SN987654321", "-EXIF:Make=SecretCam", "-XMP:Description=private note", src.path])
        let tags = try Fidelity.exiftool(src)
        XCTAssertEqual(tags["EXIF:Artist"] as? String, "Jane Photographer", "the fixture carries its tags")
        XCTAssertNotNil(tags["EXIF:GPSLatitude"])
        return src
    }

    func testKeepCopyrightKeepsCopyrightAndArtistAndRemovesGPS() throws {
        let src = try taggedPhoto()
        for ext in ["jpg", "webp", "png", "avif"] {
            let out = file("kept.\(ext)")
            let r = try get([src.path, "-s", "200", "--keep-metadata", "copyright", "-o", out.path])
            if ext == "avif", r.status == 1 { continue }  // a libvips without an AV1 encoder
            assertExit(r, 0)
            let tags = try Fidelity.exiftool(out)
            XCTAssertEqual(tags["EXIF:Copyright"] as? String, "(c) 2026 Jane Photographer, all rights reserved", "\(ext): \(tags)")
            XCTAssertEqual(tags["EXIF:Artist"] as? String, "Jane Photographer", ext)
            for gone in tags.keys where gone.hasPrefix("GPS") || gone.hasPrefix("XMP") || gone.hasPrefix("IPTC") || gone.hasPrefix("MakerNotes") {
                XCTFail("\(ext) still carries \(gone)")
            }
            XCTAssertNil(tags["EXIF:SerialNumber"], ext)
            XCTAssertNil(tags["EXIF:Make"], ext)
            let bytes = try Data(contentsOf: out)
            for secret in ["SN987654321", "SecretCam", "private note"] {
                XCTAssertNil(bytes.range(of: Data(secret.utf8)), "\(ext) carries \(secret)")
            }
        }
        // GIF carries no EXIF; without the option, nothing is kept.
        for (name, args) in [("kept.gif", ["--keep-metadata", "copyright"]), ("plain.jpg", [])] {
            let out = file(name)
            assertExit(try get([src.path, "-s", "200", "-o", out.path] + args), 0)
            XCTAssertNil(try Fidelity.exiftool(out)["EXIF:Copyright"], name)
            XCTAssertNil(try Data(contentsOf: out).range(of: Data("Jane".utf8)), name)
        }
    }

    func testKeepICCKeepsTheSourceProfile() throws {
        let src = E2EPaths.fixture("icc-adobe.jpg")
        let description = try XCTUnwrap(Fidelity.exiftool(src)["ICC_Profile:ProfileDescription"] as? String)
        for ext in ["jpg", "png", "webp"] {
            let kept = file("icc.\(ext)"), plain = file("srgb.\(ext)")
            assertExit(try get([src.path, "-s", "150", "--keep-metadata", "icc", "-o", kept.path]), 0)
            assertExit(try get([src.path, "-s", "150", "-o", plain.path]), 0)
            XCTAssertEqual(try Fidelity.exiftool(kept)["ICC_Profile:ProfileDescription"] as? String, description, ext)
            XCTAssertNil(try Fidelity.exiftool(plain)["ICC_Profile:ProfileDescription"], "\(ext): sRGB without a profile by default")
            // Through its profile, the kept picture is still the source's colours.
            let dE = try XCTUnwrap(Fidelity.measure(["delta-e", kept.path, src.path])["delta_e"] as? Double)
            XCTAssertGreaterThan(dE, 1.5, "\(ext): the pixels are the source's (Adobe RGB), not converted to sRGB")
        }
    }

    func testAllowJXLReadsJXLSourcesThatAreOtherwiseBlocked() throws {
        let jxl = file("photo.jxl")
        let vips = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/vips"), ["copy", E2EPaths.fixture("photo.jpg").path, jxl.path],
                                     environment: ProcessInfo.processInfo.environment, timeout: 60)
        try XCTSkipIf(vips.status != 0, "this libvips cannot write JXL: \(vips.stderr)")
        let out = file("from-jxl.png")
        let blocked = try get([jxl.path, "-s", "100", "-o", out.path, "--json"])
        assertExit(blocked, 1)
        assertFailureRecord(blocked, code: "unsupported_format")
        XCTAssertTrue(blocked.stderr.contains("--allow-jxl"), "the message names the option that reads it: \(blocked.stderr)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        assertExit(try get([jxl.path, "-s", "100", "--allow-jxl", "-o", out.path]), 0)
        assertImageFile(out, .png, width: 100, height: 67)
        // Input only: JXL is no output format.
        assertExit(try get([jxl.path, "-s", "100", "--allow-jxl", "-f", "jxl", "-o", file("x.out").path]), 2)
    }
}
