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
}
