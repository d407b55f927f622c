import Foundation
import XCTest

/// `--fit cover --upscale` scales the whole source before it crops: a 65500x2 JPEG in a 300x300 box
/// became a 9,825,000x300 image (8.4 GB) before the crop, which hung a worker or failed as "not a
/// decodable image" under a memory limit (issue 41, point 2). Over `--max-pixels`, the part cover
/// keeps is cut out of the source first and only that part is scaled.
final class CoverIntermediateTests: E2ETestCase {
    /// Runs `get ARGS` under python3, which prints the child's peak RSS (KB) as the last stderr line.
    func getMeasured(_ args: [String], timeout: TimeInterval = 60) throws -> (result: RunResult, maxRSS: Int) {
        guard let binary = E2EPaths.binary else { throw Imgfetch.NotBuilt() }
        let code = "import resource, subprocess, sys\n"
            + "rc = subprocess.run(sys.argv[1:]).returncode\n"
            + "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
            + "sys.exit(rc)\n"
        let r = ProcessRunner.run(Fidelity.python, ["-c", code, binary.path, "get", "--cache-dir", cacheDir.path] + args,
                                  environment: Imgfetch.baseEnvironment(home: home), currentDirectory: work, timeout: timeout)
        XCTAssertFalse(r.timedOut, "did not finish within \(Int(timeout)) s:\n\(r)")
        return (r, Int(r.stderrLines.last ?? "") ?? Int.max)
    }

    /// The mean difference (0-255) between `out` and the region `box` (left, top, right, bottom) of
    /// `source`, scaled to `out`'s size by PIL.
    func meanDifference(_ out: URL, _ source: URL, box: (Int, Int, Int, Int)) throws -> Double {
        let report = file("difference.txt")
        try Fidelity.python("""
            from PIL import Image, ImageChops, ImageStat
            out = Image.open('\(out.path)').convert('RGB')
            ref = Image.open('\(source.path)').convert('RGB').crop(\(box)).resize(out.size, Image.BILINEAR)
            open('\(report.path)', 'w').write(str(sum(ImageStat.Stat(ImageChops.difference(out, ref)).mean) / 3))
            """)
        return Double(try String(contentsOf: report, encoding: .utf8)) ?? .infinity
    }

    func testCoverOfAnExtremeAspectJPEGCropsTheCentreFirst() throws {
        // 65500x2 and 2x65500: a gradient along the long side, so the centre is the only right crop.
        let wide = file("wide.jpg"), tall = file("tall.jpg")
        try Fidelity.python("""
            from PIL import Image
            im = Image.new('RGB', (65500, 2))
            im.putdata([(x * 255 // 65499, 60 + 120 * y, 255 - x * 255 // 65499) for y in range(2) for x in range(65500)])
            im.save('\(wide.path)', quality=92)
            im.transpose(Image.Transpose.ROTATE_90).save('\(tall.path)', quality=92)
            """)
        for (source, box) in [(wide, (32749, 0, 32751, 2)), (tall, (0, 32749, 2, 32751))] {
            let out = file(source.lastPathComponent + ".png")
            let (r, rss) = try getMeasured([source.path, "-s", "300x300", "--upscale", "--fit", "cover", "--json", "-o", out.path])
            assertExit(r, 0)
            assertImageFile(out, .png, width: 300, height: 300, source.lastPathComponent)
            XCTAssertLessThan(r.elapsed, 20, "no 8.4 GB image is built:\n\(r)")
            XCTAssertLessThan(rss, 400_000, "peak RSS \(rss) KB:\n\(r)")
            // The centre of the source, as cover keeps it (the gradient's ends are 255 apart).
            let difference = try meanDifference(out, source, box: box)
            XCTAssertLessThan(difference, 12, "\(source.lastPathComponent): the centre, scaled (mean difference \(difference))")
        }
    }

    func testTheSmartCropsAndAnEXIFTurnCropFirstToo() throws {
        // 2x65500 stored, EXIF orientation 6: shown 65500x2. attention and entropy read the source twice.
        let turned = file("turned.jpg")
        try Fidelity.python("""
            from PIL import Image
            im = Image.new('RGB', (2, 65500))
            im.putdata([(y * 255 // 65499, 60 + 120 * x, 90) for y in range(65500) for x in range(2)])
            exif = Image.Exif()
            exif[0x0112] = 6
            im.save('\(turned.path)', quality=92, exif=exif.tobytes())
            """)
        for crop in ["attention", "entropy", "centre"] {
            let out = file("turned-\(crop).png")
            let (r, rss) = try getMeasured([turned.path, "-s", "300x100", "--upscale", "--fit", "cover", "--crop", crop, "-o", out.path])
            assertExit(r, 0)
            assertImageFile(out, .png, width: 300, height: 100, crop)
            XCTAssertLessThan(rss, 400_000, "\(crop): peak RSS \(rss) KB:\n\(r)")
        }
    }

    func testMaxPixelsBelowTheScaledSourceCropsFirstWithTheSamePicture() throws {
        // A 40x90 PNG into 400x400: cover scales it to 400x900 (360,000 pixels) and crops. Under
        // --max-pixels 200,000 (the source 3,600, the output 160,000) the same centre is cut first.
        let small = file("small.png")
        try Fidelity.python("""
            from PIL import Image
            im = Image.new('RGB', (40, 90))
            im.putdata([(x * 6, y * 2, (x * y) % 256) for y in range(90) for x in range(40)])
            im.save('\(small.path)')
            """)
        // Each in its own cache: --max-pixels is a limit, not part of the variant's key.
        func fresh(_ args: [String]) throws -> RunResult {
            try imgfetch(["get", "--cache-dir", file("cache-\(args.count)-\(args.last ?? "")").path] + args)
        }
        let plain = try fresh([small.path, "-s", "400x400", "--fit", "cover", "--upscale", "-o", file("plain.png").path])
        assertExit(plain, 0)
        let limited = try fresh([small.path, "-s", "400x400", "--fit", "cover", "--upscale", "--max-pixels", "200000",
                                 "--json", "-o", file("limited.png").path])
        assertExit(limited, 0)
        assertImageFile(file("limited.png"), .png, width: 400, height: 400)
        let difference = try meanDifference(file("limited.png"), file("plain.png"), box: (0, 0, 400, 400))
        XCTAssertLessThan(difference, 2, "the picture cover gives (mean difference \(difference))")
        // The output itself over the limit is still refused, naming it.
        let over = try fresh([small.path, "-s", "400x400", "--fit", "cover", "--upscale", "--max-pixels", "150000",
                              "--json", "-o", file("over.png").path])
        assertExit(over, 7)
        assertFailureRecord(over, code: "too_large")
    }

    func testAnAnimationWhoseFramesWouldScaleOverTheLimitIsRefusedNamingThem() throws {
        // Every frame is kept whole (GIF to GIF): 2 frames of 3000x2 into 300x300 scale to
        // 450000x300 each before cropping.
        let gif = file("strip.gif")
        try Fidelity.python("""
            from PIL import Image
            frames = [Image.new('RGB', (3000, 2), c) for c in ((255, 0, 0), (0, 0, 255))]
            frames[0].save('\(gif.path)', save_all=True, append_images=frames[1:], duration=100, loop=0)
            """)
        let r = try get([gif.path, "-s", "300x300", "--fit", "cover", "--upscale", "--json", "-o", file("o.gif").path])
        assertExit(r, 7)
        assertFailureRecord(r, code: "too_large")
        XCTAssertTrue(r.stderr.contains("450000x300 before cropping"), "the intermediate is named:\n\(r)")
        XCTAssertLessThan(r.elapsed, 10, "refused before decoding:\n\(r)")
    }
}
