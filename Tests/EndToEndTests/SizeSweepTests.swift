import Foundation
import XCTest

/// One rounding rule on every path, vipsthumbnail's: the same box gives the same dimensions,
/// whether the JPEG path or libvips makes the picture.
final class SizeSweepTests: E2ETestCase {
    func testDimensionsMatchVipsthumbnail() throws {
        // Plain JPEGs (the libjpeg path, one of odd size), ICC-tagged and EXIF-rotated JPEGs, PNG, WebP.
        let odd = file("odd.jpg")
        try Fidelity.python("""
            from PIL import Image
            Image.open('\(E2EPaths.fixture("photo.jpg").path)').resize((1999, 1327)).save('\(odd.path)', quality=90)
            """)
        let sources = [odd.path] + ["photo.jpg", "portrait.jpg", "icc-adobe.jpg", "orientation6.jpg", "alpha.png", "small.webp"]
            .map { E2EPaths.fixture($0).path }
        var cases = 0
        var mismatches: [String] = []
        for source in sources {
            for box in [33, 100, 201, 320, 333] {
                // imgfetch's -s and vipsthumbnail's -s for the same box (vipsthumbnail's W alone is WxW).
                let specs = [("\(box)", "\(box)x"), ("x\(box)", "x\(box)"), ("\(box)x\(box)", "\(box)x\(box)"),
                             ("\(box)x\(box / 2 + 1)", "\(box)x\(box / 2 + 1)")]
                for (ours, theirs) in specs {
                    for cover in ours.contains("x") && !ours.hasPrefix("x") ? [false, true] : [false] {
                        // JPEG to JPEG takes the libjpeg path when it can; the rest is libvips.
                        let produced = file(source.hasSuffix(".jpg") ? "a.jpg" : "a.png"), v = file("v.png")
                        assertExit(try get([source, "-s", ours, "--fit", cover ? "cover" : "inside", "-o", produced.path]), 0)
                        try Fidelity.vipsthumbnail([source, "-s", theirs + ">", "-o", v.path] + (cover ? ["--smartcrop", "centre"] : []))
                        guard let mine = ImageInfo(file: produced), let reference = ImageInfo(file: v) else {
                            XCTFail("unreadable output for \(source) \(ours)")
                            continue
                        }
                        cases += 1
                        if (mine.width, mine.height) != (reference.width, reference.height) {
                            mismatches.append("\(URL(fileURLWithPath: source).lastPathComponent) -s \(ours)\(cover ? " cover" : ""): \(mine.width)x\(mine.height), vipsthumbnail \(reference.width)x\(reference.height)")
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(cases, 150)
        XCTAssertEqual(mismatches, [], "\(mismatches.count) of \(cases) differ")
    }
}
