import Foundation
import XCTest

/// `--size` and `--fit`: what the written image's pixels look like.
final class ResizeTests: E2ETestCase {
    func testBoxKeepsAspectRatio() throws {
        let out = file("out.jpg")
        let r = try get([imageURL("photo.jpg"), "-s", "320x320", "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .jpeg, width: 320, height: 213)  // 1200x800 inside 320x320
    }

    func testPortraitFitsBoxByHeight() throws {
        let out = file("out.jpg")
        let r = try get([imageURL("portrait.jpg"), "--size", "320x320", "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .jpeg, width: 240, height: 320)  // 600x800 inside 320x320
    }

    func testWidthOnly() throws {
        let out = file("out.jpg")
        let r = try get([imageURL("photo.jpg"), "-s", "300", "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .jpeg, width: 300, height: 200)
    }

    func testHeightOnly() throws {
        let out = file("out.jpg")
        let r = try get([imageURL("photo.jpg"), "-s", "x100", "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .jpeg, width: 150, height: 100)
    }

    func testNeverUpscales() throws {
        let out = file("out.jpg")
        let r = try get([imageURL("tiny.jpg"), "-s", "500x500", "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .jpeg, width: 100, height: 67)
    }

    func testFitCoverFillsTheBoxExactly() throws {
        let out = file("out.jpg")
        let r = try get([imageURL("photo.jpg"), "--fit", "cover", "-s", "200x200", "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .jpeg, width: 200, height: 200)
    }

    func testFitCoverPortrait() throws {
        let out = file("out.jpg")
        let r = try get([imageURL("portrait.jpg"), "--fit", "cover", "-s", "300x100", "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .jpeg, width: 300, height: 100)
    }

    func testFitInsideIsTheDefault() throws {
        let a = file("a.jpg"), b = file("b.jpg")
        assertExit(try get([imageURL("photo.jpg"), "-s", "200x200", "-o", a.path]), 0)
        assertExit(try get([imageURL("photo.jpg", "v=2"), "--fit", "inside", "-s", "200x200", "-o", b.path]), 0)
        assertImageFile(a, .jpeg, width: 200, height: 133)
        assertImageFile(b, .jpeg, width: 200, height: 133)
    }
}
