import Foundation
import XCTest

/// $XDG_CONFIG_HOME/imgfetch/config (the base environment points XDG_CONFIG_HOME into the test's
/// home), --config FILE, --no-config; the command line wins; errors name FILE:LINE.
final class ConfigFileTests: E2ETestCase {
    private var defaultConfig: URL { home.appendingPathComponent("config/imgfetch/config") }

    private func writeConfig(_ lines: [String], to url: URL? = nil) throws {
        let url = url ?? defaultConfig
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
    }

    private func lastHeaders() throws -> [String: String] {
        try XCTUnwrap(try server.requestLog().last).headers
    }

    func testDefaultConfigIsReadAndTheCommandLineWins() throws {
        try writeConfig(["# defaults", "", "user-agent = \"Config Agent/1\"", "--header: X-Conf: yes",
                         "referer https://conf.example/", "jobs 3"])
        assertExit(try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path]), 0)
        var got = try lastHeaders()
        XCTAssertEqual(got["user-agent"], "Config Agent/1")
        XCTAssertEqual(got["x-conf"], "yes")
        XCTAssertEqual(got["referer"], "https://conf.example/")

        assertExit(try get([imageURL("tiny.jpg", "v=2"), "-o", file("a.jpg").path, "-A", "Line/2", "-H", "X-Cli: 1"]), 0)
        got = try lastHeaders()
        XCTAssertEqual(got["user-agent"], "Line/2", "the command line wins")
        XCTAssertEqual(got["x-conf"], "yes", "repeatable options add up")
        XCTAssertEqual(got["x-cli"], "1")

        assertExit(try get([imageURL("tiny.jpg", "v=3"), "-o", file("a.jpg").path, "--no-config"]), 0)
        XCTAssertNotEqual(try lastHeaders()["user-agent"], "Config Agent/1", "--no-config reads nothing")
    }

    func testConfigOptionNamesAnotherFile() throws {
        let other = file("my.conf")
        try writeConfig(["user-agent Other/1"], to: other)
        try writeConfig(["user-agent Default/1"])
        assertExit(try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path, "--config", other.path]), 0)
        XCTAssertEqual(try lastHeaders()["user-agent"], "Other/1")
        let missing = try get([imageURL("tiny.jpg"), "--config", file("none.conf").path])
        assertExit(missing, 2)
        XCTAssertTrue(missing.stderr.contains("none.conf"), missing.stderr)
    }

    func testErrorsNameFileAndLine() throws {
        for (lines, lineNumber) in [(["# ok", "user-agent A", "no-such-option 1"], 3),
                                    (["size 0x0"], 1),
                                    (["user bob"], 1),
                                    (["config other"], 1),
                                    (["insecure yes"], 1)] {
            try writeConfig(lines)
            let r = try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path])
            assertExit(r, 2)
            XCTAssertTrue(r.stderr.contains("imgfetch/config:\(lineNumber): "), "\(lines): \(r.stderr)")
        }
        XCTAssertEqual(try server.totalRequests(), 0)
    }
}

extension ConfigFileTests {
    /// A FIFO named by --config or --cacert is refused unread (reading it would wait forever).
    func testAFIFOIsRefusedUnread() throws {
        let fifo = file("fifo")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        for args in [["--config", fifo.path], ["--cacert", fifo.path], ["--netrc-file", fifo.path]] {
            let r = try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path] + args, timeout: 10)
            assertExit(r, 2)
        }
    }
}

extension ConfigFileTests {
    /// A global option (--cache-dir) may be set in the config file too.
    func testCacheDirFromTheConfigFile() throws {
        let dir = root.appendingPathComponent("configured-cache")
        try writeConfig(["cache-dir \(dir.path)"])
        assertExit(try imgfetch(["get", imageURL("tiny.jpg"), "-o", file("a.jpg").path]), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("CACHEDIR.TAG").path))
    }

    /// A config file saved on Windows (CR LF, a byte order mark) is read line by line like any other.
    func testCRLFConfigIsReadLineByLine() throws {
        let url = file("windows.conf")
        try Data(("\u{FEFF}# my config\r\nmax-bytes 10\r\nuser alice:Sekr1tPW\r\n").utf8).write(to: url)
        let r = try get([imageURL("tiny.jpg"), "--config", url.path, "-o", file("a.jpg").path, "--json"])
        assertExit(r, 7)
        XCTAssertTrue(r.stdoutText.contains("too_large"), "max-bytes 10 applies:\n\(r)")
        XCTAssertFalse(r.stdoutText.contains("Sekr1tPW") || r.stderr.contains("Sekr1tPW"), "\(r)")
    }

    /// Where output goes is never a default of every run.
    func testOutputOptionsAreNotAllowedInAConfigFile() throws {
        for line in ["output /tmp/x.jpg", "output-dir d", "name {key}"] {
            let url = file("out.conf")
            try writeConfig([line], to: url)
            let r = try get([imageURL("tiny.jpg"), "--config", url.path, "-o", file("a.jpg").path])
            assertExit(r, 2)
            XCTAssertTrue(r.stderr.contains("not allowed in a config file"), "\(r)")
        }
    }
}
