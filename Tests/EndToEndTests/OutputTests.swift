import Foundation
import XCTest

/// Where the image goes: stdout when it is a pipe, `-o FILE`, `-o -`.
final class OutputTests: E2ETestCase {
    func testImageGoesToStdoutWhenPiped() throws {
        let r = try get([imageURL("photo.jpg")])
        assertExit(r, 0)
        assertImage(r.stdout, .jpeg, width: 1200, height: 800)
    }

    func testResizedImageToStdout() throws {
        let r = try get([imageURL("photo.jpg"), "-s", "320x320"])
        assertExit(r, 0)
        assertImage(r.stdout, .jpeg, width: 320, height: 213)
    }

    func testDashOutputMeansStdout() throws {
        let r = try get([imageURL("tiny.jpg"), "-o", "-"])
        assertExit(r, 0)
        assertImage(r.stdout, .jpeg, width: 100, height: 67)
    }

    func testOutputFileLeavesStdoutFreeOfImageData() throws {
        let out = file("out.jpg")
        let r = try get([imageURL("photo.jpg"), "-s", "300", "-o", out.path])
        assertExit(r, 0)
        XCTAssertNil(ImageInfo(data: r.stdout), "no image on stdout with -o FILE:\n\(r)")
        XCTAssertLessThan(r.stdout.count, 1000, "no image data on stdout with -o FILE:\n\(r)")
        assertImageFile(out, .jpeg, width: 300, height: 200)
    }

    func testSuccessWritesNothingToStderrWhenQuiet() throws {
        let r = try get([imageURL("photo.jpg"), "-s", "100", "--quiet", "-o", file("o.jpg").path])
        assertExit(r, 0)
        XCTAssertTrue(r.stderrLines.isEmpty, "stderr should be empty with --quiet:\n\(r)")
    }
}
