import Foundation
import XCTest

/// Binary image data never goes to a terminal: imgfetch refuses with a hint and exit 2.
/// `script` (util-linux) gives imgfetch a real pseudo-terminal as stdout.
final class TerminalTests: E2ETestCase {
    func runOnTerminal(_ args: [String]) throws -> RunResult {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), let binary = E2EPaths.binary else {
            throw XCTSkip("util-linux script(1) is needed for a pseudo-terminal")
        }
        let quoted = ([binary.path] + args).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home.path
        env["TERM"] = "dumb"
        // script -e: exit with the child's status; the typescript goes to /dev/null.
        return ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/script"),
                                 ["-qec", quoted.joined(separator: " ") + "; echo \"[exit $?]\"", "/dev/null"],
                                 environment: env, stdin: nil, currentDirectory: nil, timeout: 30)
    }

    func testImageToATerminalIsRefusedWithAHint() throws {
        let r = try runOnTerminal(["get", imageURL("photo.jpg"), "--cache-dir", cacheDir.path])
        let screen = r.stdoutText
        XCTAssertTrue(screen.contains("[exit 2]"), screen)
        XCTAssertTrue(screen.contains("-o FILE"), "the message hints at -o: \(screen)")
        XCTAssertFalse(r.stdout.contains(0xFF) && r.stdout.contains(0xD8), "no JPEG bytes reached the terminal")
        XCTAssertEqual(try server.stats().total, 0, "refused before any request")
    }

    func testJSONWithoutOutputOnATerminalPrintsTheRecordOnly() throws {
        let r = try runOnTerminal(["get", imageURL("photo.jpg"), "--json", "--cache-dir", cacheDir.path])
        let screen = r.stdoutText
        XCTAssertTrue(screen.contains("[exit 0]"), screen)
        XCTAssertTrue(screen.contains("\"status\":\"ok\""), screen)
    }

    func testOutputFileWorksFromATerminal() throws {
        let r = try runOnTerminal(["get", imageURL("photo.jpg"), "-s", "120", "-o", file("t.jpg").path, "--cache-dir", cacheDir.path])
        XCTAssertTrue(r.stdoutText.contains("[exit 0]"), r.stdoutText)
        assertImageFile(file("t.jpg"), .jpeg, width: 120, height: 80)
    }
}
