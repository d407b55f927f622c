import Foundation
import XCTest

/// `-u USER:PASSWORD` leaves no password in `/proc/PID/cmdline` while the run goes on (curl's
/// rule): read from outside the process while a `get` waits on a server that never answers.
final class ArgumentSecretsTests: E2ETestCase {
    /// The process's command line as others see it, arguments joined with newlines.
    private func cmdline(_ pid: Int32) -> String? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\0", with: "\n")
    }

    func testThePasswordIsBlankedInTheRunningProcessCommandLine() throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        let binary = try XCTUnwrap(E2EPaths.binary)
        let process = Process()
        process.executableURL = binary
        // Every form the parser takes: a separate value, --user=, an attached short value, a cluster.
        process.arguments = ["get", "--cache-dir", cacheDir.path, "-u", "alice:pw-one-s3cret", "--user=bob:pw-two-s3cret",
                             "-ucarol:pw-three-s3cret", "-ku=dave:pw-four-s3cret", "--timeout", "20",
                             raw.url("/img/hang.jpg"), "-o", file("out.jpg").path]
        process.environment = Imgfetch.baseEnvironment(home: home)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        // Blanked right after parsing, long before the server (which never answers) is given up on.
        var seen = cmdline(process.processIdentifier) ?? ""
        let deadline = Date().addingTimeInterval(5)
        // Until the program has started (an empty or the spawner's command line first) and blanked.
        while !seen.contains("hang.jpg") || seen.contains("s3cret"), process.isRunning, Date() < deadline {
            usleep(20_000)
            seen = cmdline(process.processIdentifier) ?? ""
        }
        XCTAssertTrue(process.isRunning, "the get is still waiting on the server")
        XCTAssertFalse(seen.contains("s3cret"), "a password is readable in /proc/PID/cmdline:\n\(seen)")
        let lines = seen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(lines.contains("alice:" + String(repeating: " ", count: "pw-one-s3cret".count)), "\(lines)")
        XCTAssertTrue(lines.contains("--user=bob:" + String(repeating: " ", count: "pw-two-s3cret".count)), "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("-ucarol:") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("-ku=dave:") }, "\(lines)")
        XCTAssertTrue(lines.contains(raw.url("/img/hang.jpg")), "the other arguments are left as they are: \(lines)")
    }
}
