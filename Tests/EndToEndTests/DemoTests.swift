import Foundation
import XCTest

/// `make demo` (scripts/demo.sh): plain text when piped, and the thumbnails kept in the directory
/// it names at the end.
final class DemoTests: E2ETestCase {
    func testDemoPipedPrintsNoEscapeCodesAndKeepsTheThumbnails() throws {
        let r = try repositoryScript("demo.sh", env: ["TERM": "xterm", "NO_COLOR": ""])
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertFalse(r.stdout.contains(0x1B), "no escape codes on a pipe:\n\(r.stdoutText.debugDescription)")
        XCTAssertFalse(r.stderr.contains("\u{1B}"), "no escape codes on a pipe:\n\(r.stderr.debugDescription)")
        guard let last = r.stdoutText.split(separator: "\n").last, last.hasPrefix("kept in: ") else {
            return XCTFail("the last line names the directory:\n\(r.stdoutText)")
        }
        let dir = URL(fileURLWithPath: String(last.dropFirst("kept in: ".count)))
        XCTAssertTrue(dir.path.hasPrefix(root.path), "made under TMPDIR: \(dir.path)")
        assertImageFile(dir.appendingPathComponent("photo-320.jpg"), .jpeg, width: 320)
        assertImageFile(dir.appendingPathComponent("photo-100.webp"), .webp, width: 100)
        assertExit(try imgfetch(["cache", "verify", "--cache-dir", dir.appendingPathComponent("cache").path]), 0)
    }
}
