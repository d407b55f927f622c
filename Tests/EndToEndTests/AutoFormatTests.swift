import Foundation
import XCTest

/// `-f auto` (and `--accept`): the smallest suitable format, kept with the entry.
final class AutoFormatTests: E2ETestCase {
    /// Pillow's reading of each file: format, size and the smallest alpha (`image_probe.py`).
    func probe(_ files: [URL], make: Bool = false) -> [[String: Any]] {
        let script = E2EPaths.testsDir.appendingPathComponent("Support/image_probe.py").path
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"),
                                  ["python3", script] + (make ? ["--make", work.path] : []) + files.map(\.path),
                                  environment: ProcessInfo.processInfo.environment, timeout: 60)
        XCTAssertEqual(r.status, 0, "\(r)")
        return r.stdoutText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    func size(_ url: URL) -> Int { (try? Data(contentsOf: url).count) ?? -1 }

    func testAutoIsNoLargerThanJPEGOrWebPAndTheHitKeepsItsChoice() throws {
        for (i, (name, quality)) in [("photo.jpg", "80"), ("portrait.jpg", "75"), ("detail.jpg", "90")].enumerated() {
            let auto = file("auto-\(i)"), jpeg = file("j-\(i).jpg"), webp = file("w-\(i).webp")
            let miss = try get([imageURL(name), "-s", "320x320", "-q", quality, "-f", "auto", "-o", auto.path, "--json"])
            assertExit(miss, 0)
            assertExit(try get([imageURL(name), "-s", "320x320", "-q", quality, "-o", jpeg.path]), 0)
            assertExit(try get([imageURL(name), "-s", "320x320", "-q", quality, "-o", webp.path]), 0)
            XCTAssertLessThanOrEqual(size(auto), size(jpeg), name)
            XCTAssertLessThanOrEqual(size(auto), size(webp), name)
            let record = singleRecord(miss)
            let format = try XCTUnwrap(record.string("format"))
            XCTAssertTrue(["jpeg", "webp"].contains(format), "\(record)")
            XCTAssertEqual(probe([auto]).first?["format"] as? String, format, "-o without extension holds the chosen format")
            let path = try XCTUnwrap(record.string("path"))
            XCTAssertTrue(path.hasSuffix(format == "jpeg" ? ".jpg" : ".webp"), "the cache file is named by its format: \(path)")

            // A hit: the same entry, the same choice, nothing downloaded or made again.
            let again = file("again-\(i)")
            let hit = try get([imageURL(name), "-s", "320x320", "-q", quality, "-f", "auto", "-o", again.path, "--json"])
            let h = singleRecord(hit)
            XCTAssertEqual(h.string("cache"), "hit", "\(h)")
            XCTAssertEqual(h.string("format"), format)
            XCTAssertEqual(h.string("key"), record.string("key"))
            XCTAssertEqual(try Data(contentsOf: again), try Data(contentsOf: auto))
        }
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 1, "one download for the miss; the others derive or hit")
    }

    func testTransparencyIsKept() throws {
        let out = file("alpha-auto")
        let r = try get([imageURL("alpha.png"), "-s", "200", "-f", "auto", "-o", out.path, "--json"])
        assertExit(r, 0)
        let format = singleRecord(r).string("format")
        XCTAssertTrue(format == "webp" || format == "png", "a format that keeps alpha: \(String(describing: format))")
        let info = probe([out])
        XCTAssertEqual(info.first?["format"] as? String, format)
        XCTAssertLessThan(info.first?["min_alpha"] as? Int ?? 255, 255, "the transparency is still there")

        // Candidates without alpha are never used for it; with none that keeps it, it fails cleanly.
        let jpegOnly = try get([imageURL("alpha.png"), "-s", "200", "-f", "auto", "--accept", "jpeg", "-o", file("x").path])
        assertExit(jpegOnly, 1)
        assertOneErrorLine(jpegOnly, containing: "transparency")
    }

    func testAnAnimationBecomesItsFirstFrameAndTheRecordSaysItsSize() throws {
        // animated.gif: 3 frames of 60x40. Every frame stacked into one still (libvips' cogs.gif as
        // an 85x385 PNG recorded as 85x77) or an animation kept for one candidate only: neither.
        for (i, extra) in [[], ["-s", "30"], ["--accept", "png,webp"]].enumerated() {
            let out = file("anim-\(i)")
            let r = try get([imageURL("animated.gif"), "-f", "auto", "-o", out.path, "--json"] + extra)
            assertExit(r, 0)
            let record = singleRecord(r)
            let info = try XCTUnwrap(probe([out]).first)
            XCTAssertEqual(info["frames"] as? Int, 1, "-f auto writes the first frame: \(info)")
            XCTAssertEqual(info["width"] as? Int, record.int("width"), "\(info) \(record)")
            XCTAssertEqual(info["height"] as? Int, record.int("height"), "\(info) \(record)")
            XCTAssertEqual(record.int("height"), i == 1 ? 20 : 40)
        }
    }

    func testAcceptNamesTheCandidatesAndCountsInTheKey() throws {
        let png = try get([imageURL("photo.jpg"), "-s", "100", "-f", "auto", "--accept", "png", "-o", file("p").path, "--json"])
        assertExit(png, 0)
        XCTAssertEqual(singleRecord(png).string("format"), "png")
        let both = try get([imageURL("photo.jpg"), "-s", "100", "-f", "auto", "--accept", "jpeg, png", "-o", file("q").path, "--json"])
        XCTAssertEqual(singleRecord(both).string("format"), "jpeg", "JPEG is smaller than PNG for a photo")
        XCTAssertNotEqual(singleRecord(both).string("key"), singleRecord(png).string("key"))
        let reordered = try get([imageURL("photo.jpg"), "-s", "100", "-f", "auto", "--accept", "png,jpeg", "--json", "-o", file("r").path])
        XCTAssertEqual(singleRecord(reordered).string("cache"), "hit", "one entry whatever the order")
    }

    func testAutoUsageErrors() throws {
        let named = try get([imageURL("photo.jpg"), "-f", "auto", "-o", file("x.jpg").path])
        assertExit(named, 2)
        XCTAssertTrue(named.stderr.contains("-f auto"), named.stderr)
        let acceptAlone = try get([imageURL("photo.jpg"), "--accept", "webp", "-o", file("y").path])
        assertExit(acceptAlone, 2)
        let bad = try get([imageURL("photo.jpg"), "-f", "auto", "--accept", "webp,bmp", "-o", file("z").path])
        assertExit(bad, 2)
        XCTAssertTrue(bad.stderr.contains("'bmp'"), bad.stderr)
    }
}
