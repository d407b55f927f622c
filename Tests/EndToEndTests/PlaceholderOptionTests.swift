import Foundation
import XCTest

/// `--placeholder`: BlurHash, ThumbHash and the mean colour, checked with independent decoders
/// (`Tests/Support/placeholder_check.py`: woltapp's C decoder, a port of evanw's), kept in the entry.
final class PlaceholderOptionTests: E2ETestCase {
    func script(_ name: String) -> String { E2EPaths.testsDir.appendingPathComponent("Support/\(name)").path }

    func python(_ args: [String]) -> RunResult {
        ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3"] + args,
                          environment: ProcessInfo.processInfo.environment, timeout: 120)
    }

    /// The pictures of `image_probe.py --make`: coloured quadrants, and with a transparent disc.
    func makePictures() throws {
        let r = python([script("image_probe.py"), "--make", work.path])
        XCTAssertEqual(r.status, 0, "\(r)")
    }

    /// The independent decoders' verdict on a record's placeholders for the image in `file`.
    func assertDecodes(_ record: [String: Any], picture file: URL, alpha: Bool = false,
                       sourceLine: UInt = #line) throws {
        let bh = try XCTUnwrap(record.string("blurhash"), "\(record)", line: sourceLine)
        let th = try XCTUnwrap(record.string("thumbhash"), "\(record)", line: sourceLine)
        let avg = try XCTUnwrap(record.string("average_color"), "\(record)", line: sourceLine)
        XCTAssertEqual(bh.count, 28, "4x3 components", line: sourceLine)
        let r = python([script("placeholder_check.py"), file.path, bh, th, avg])
        XCTAssertEqual(r.status, 0, "\(r)", line: sourceLine)
        let m = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdoutText.utf8)) as? [String: Any], line: sourceLine)
        func v(_ k: String) -> Double { (m[k] as? NSNumber)?.doubleValue ?? .infinity }
        XCTAssertLessThan(v("blurhash_mae"), 45, "\(m)", line: sourceLine)
        XCTAssertLessThan(v("thumbhash_mae"), 45, "\(m)", line: sourceLine)
        XCTAssertLessThan(v("blurhash_mae"), v("blurhash_mae_rotated") / 2, "the hash is of this picture: \(m)", line: sourceLine)
        XCTAssertLessThan(v("thumbhash_mae"), v("thumbhash_mae_rotated") / 2, "the hash is of this picture: \(m)", line: sourceLine)
        XCTAssertLessThan(v("thumbhash_alpha_mae"), alpha ? 60 : 1, "\(m)", line: sourceLine)
        XCTAssertLessThanOrEqual(v("average_color_diff"), 3, "\(m)", line: sourceLine)
    }

    func testPlaceholdersDecodeWithIndependentDecoders() throws {
        try makePictures()
        // libjpeg's thumbnail, libvips' (PNG with alpha, WebP), and an original handed out as it is.
        let cases: [(source: String, args: [String], output: String, alpha: Bool)] = [
            (file("quad.jpg").path, ["-s", "320x320"], "a.jpg", false),
            (file("quad-alpha.png").path, ["-s", "320x320"], "b.png", true),
            (file("quad.jpg").path, ["-s", "200", "-f", "webp"], "c.webp", false),
            (file("quad.jpg").path, [], "d.jpg", false),
        ]
        for c in cases {
            let out = file(c.output)
            let r = try get([c.source] + c.args + ["--placeholder", "blurhash,thumbhash", "--json", "-o", out.path])
            assertExit(r, 0)
            try assertDecodes(singleRecord(r), picture: out, alpha: c.alpha)
        }
    }

    func testOnlyTheOnesAskedForAndTheColourAreInTheRecord() throws {
        let r = try get([imageURL("photo.jpg"), "-s", "100", "--placeholder", "thumbhash", "--json", "-o", file("t.jpg").path])
        let record = singleRecord(r)
        XCTAssertNil(record["blurhash"])
        XCTAssertNotNil(record.string("thumbhash"))
        XCTAssertTrue(record.string("average_color")?.range(of: "^#[0-9a-f]{6}$", options: .regularExpression) != nil, "\(record)")
        let none = try get([imageURL("photo.jpg"), "-s", "100", "--json", "-o", file("u.jpg").path])
        XCTAssertNil(singleRecord(none)["average_color"], "nothing without --placeholder")
        let bad = try get([imageURL("photo.jpg"), "--placeholder", "colour", "-o", file("v.jpg").path])
        assertExit(bad, 2)
        XCTAssertTrue(bad.stderr.contains("--placeholder"), bad.stderr)
    }

    func testAHitWithoutThemComputesAndStoresThemAndCacheInfoShowsThem() throws {
        try makePictures()
        let source = file("quad.jpg").path
        let plain = try get([source, "-s", "320x320", "-f", "webp", "--json", "-o", file("p.webp").path])
        assertExit(plain, 0)
        let key = try XCTUnwrap(singleRecord(plain).string("key"))
        let meta = try XCTUnwrap(regularFiles(under: cacheDir).first { $0.lastPathComponent == key + ".meta" })
        XCTAssertFalse(try String(contentsOf: meta, encoding: .utf8).contains("blurhash"), "made without them")

        let first = try get([source, "-s", "320x320", "-f", "webp", "--placeholder", "blurhash,thumbhash", "--json", "-o", file("q.webp").path])
        let r1 = singleRecord(first)
        XCTAssertEqual(r1.string("cache"), "hit", "not part of the key: \(r1)")
        XCTAssertEqual(r1.string("key"), key)
        try assertDecodes(r1, picture: file("q.webp"))
        let stored = try String(contentsOf: meta, encoding: .utf8)
        XCTAssertTrue(stored.contains("blurhash\t" + (r1.string("blurhash") ?? "?")), stored)
        XCTAssertTrue(stored.contains("thumbhash\t" + (r1.string("thumbhash") ?? "?")), stored)

        let second = try get([source, "-s", "320x320", "-f", "webp", "--placeholder", "blurhash,thumbhash", "--json", "-o", file("r.webp").path])
        let r2 = singleRecord(second)
        XCTAssertEqual(r2.string("cache"), "hit")
        for field in ["blurhash", "thumbhash", "average_color"] { XCTAssertEqual(r2.string(field), r1.string(field), field) }

        let info = try imgfetch(["cache", "info", key, "--cache-dir", cacheDir.path, "--json"])
        assertExit(info, 0)
        let i = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(info.stdoutText.utf8)) as? [String: Any])
        for field in ["blurhash", "thumbhash", "average_color"] { XCTAssertEqual(i.string(field), r1.string(field), field) }
        let text = try imgfetch(["cache", "info", key, "--cache-dir", cacheDir.path])
        XCTAssertTrue(text.stdoutText.contains(r1.string("blurhash") ?? "?"), text.stdoutText)
        XCTAssertTrue(text.stdoutText.contains("average color:"), text.stdoutText)
    }

    func testAMissStoresThemAndTheGalleryPaintsTheColour() throws {
        let r = try get([imageURL("photo.jpg"), "-s", "200", "--placeholder", "blurhash", "--json", "-o", file("g.jpg").path])
        let record = singleRecord(r)
        let colour = try XCTUnwrap(record.string("average_color"))
        let gallery = root.appendingPathComponent("gallery")
        let made = try imgfetch(["cache", "gallery", "-o", gallery.path, "--cache-dir", cacheDir.path])
        assertExit(made, 0)
        let page = try String(contentsOf: gallery.appendingPathComponent("index.html"), encoding: .utf8)
        XCTAssertTrue(page.contains("background-color:\(colour)"), "the mean colour behind the picture")
        XCTAssertTrue(page.contains("data-blurhash=\"\(record.string("blurhash") ?? "?")\""))
    }

    func testTheGalleryDrawsTheThumbHashWhileAPictureIsMissing() throws {
        guard let browser = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: FileManager.default.isExecutableFile) else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { XCTFail("chromium is not installed") }
            return
        }
        try makePictures()
        assertExit(try get([file("quad.jpg").path, "-s", "200", "--placeholder", "thumbhash", "-o", file("g.jpg").path]), 0)
        let gallery = root.appendingPathComponent("gallery")
        assertExit(try imgfetch(["cache", "gallery", "-o", gallery.path, "--copy", "--cache-dir", cacheDir.path]), 0)
        // The picture never loads (its copy is gone): the placeholder is what the page shows.
        for image in regularFiles(under: gallery) where image.pathExtension == "jpg" { try FileManager.default.removeItem(at: image) }
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home.path
        let dom = ProcessRunner.run(URL(fileURLWithPath: browser),
                                    ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                     "--disable-component-update", "--no-first-run", "--proxy-server=http://127.0.0.1:9",
                                     "--user-data-dir=\(root.appendingPathComponent("chromium").path)", "--virtual-time-budget=5000",
                                     "--dump-dom", gallery.appendingPathComponent("index.html").absoluteString],
                                    environment: env, timeout: 120)
        let drawn = ["background-image: url(&quot;data:image/png;base64,", "background-image: url(\"data:image/png;base64,"]
        XCTAssertTrue(drawn.contains { dom.stdoutText.contains($0) }, "the ThumbHash drawn behind the missing picture:\n\(dom)")
    }
}
