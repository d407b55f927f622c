import Foundation
import XCTest

/// The remote cache tier's options as a user meets them without a store: a bad value is a usage
/// error (exit 2) naming the option, the variable or FILE:LINE, said before any request, never
/// showing a credential. (Runs with a real store are in the transport's tests.)
final class RemoteCacheOptionTests: E2ETestCase {
    let secret = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"

    func testABadURLIsAUsageErrorBeforeAnyRequest() throws {
        let before = try server.requestLog().count
        let r = try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path, "--remote-cache", "ftp://cache.example/p/"],
                        env: ["AWS_SECRET_ACCESS_KEY": secret])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("'--remote-cache'") && r.stderr.contains("s3://BUCKET/PREFIX"), r.stderr)
        XCTAssertFalse(r.stderr.contains(secret) || r.stdoutText.contains(secret))
        XCTAssertEqual(try server.requestLog().count, before, "nothing fetched")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("a.jpg").path))
    }

    func testTheVariableIsNamedWhenItIsTheBadValue() throws {
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, try writeList([imageURL("tiny.jpg")]).path],
                             env: ["IMGFETCH_REMOTE_CACHE": "cache.example/p/"])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("IMGFETCH_REMOTE_CACHE"), r.stderr)
    }

    func testABadModeOrTimeoutIsAUsageError() throws {
        let mode = try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path, "--remote-cache-mode", "sideways"])
        assertExit(mode, 2)
        XCTAssertTrue(mode.stderr.contains("read, write, read-write"), mode.stderr)
        let timeout = try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path, "--remote-timeout", "-1"])
        assertExit(timeout, 2)
        XCTAssertTrue(timeout.stderr.contains("--remote-timeout"), timeout.stderr)
    }

    func testConfigFileKeysAreCheckedAsOptions() throws {
        let config = file("remote.conf")
        try "remote-timeout 5\nremote-cache-mode = sideways\n".write(to: config, atomically: true, encoding: .utf8)
        let r = try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path, "--config", config.path])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("remote.conf:2"), r.stderr)
    }

    func testWithoutATierNothingChanges() throws {
        // A mode and a timeout alone (say from a config file) name no store: today's behaviour.
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--remote-cache-mode", "read", "--remote-timeout", "1",
                              try writeList([imageURL("tiny.jpg")]).path])
        assertExit(r, 0)
        XCTAssertTrue(r.stderr.contains("1 ok (0 cached, 0 low-data), 0 failed"), r.stderr)
    }
}
