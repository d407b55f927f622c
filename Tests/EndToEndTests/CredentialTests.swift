import Foundation
import XCTest

/// `http://user:password@host/...`: the password is sent to the server and appears nowhere else:
/// not in the cache directory, `cache ls`/`info`, `--json` records or stderr lines. Keys still
/// tell two passwords apart, by a keyed digest under the cache's 0600 secret.
final class CredentialTests: E2ETestCase {
    private let password = "s3cret-Pa55"

    private func cache(_ args: [String]) throws -> RunResult {
        try imgfetch(["cache"] + args + ["--cache-dir", cacheDir.path])
    }

    /// `url` with `user:password@` put before its host.
    private func credentialed(_ url: String, user: String = "alice", password: String) -> String {
        url.replacingOccurrences(of: "http://", with: "http://\(user):\(password)@")
    }

    private func assertNoPassword(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(text.contains(password), "\(what) shows the password:\n\(text)", file: file, line: line)
    }

    func testPasswordIsSentButNeverWrittenDown() throws {
        let url = credentialed(imageURL("tiny.jpg"), password: password)
        let r = try get([url, "--json", "--verbose", "-o", file("out.jpg").path])
        assertExit(r, 0)
        let log = try server.requests(imagePath("tiny.jpg"))
        XCTAssertEqual(log.first?.headers["authorization"],
                       "Basic " + Data("alice:\(password)".utf8).base64EncodedString(), "the server gets the credentials")

        assertNoPassword(r.stdoutText, "the --json record")
        assertNoPassword(r.stderr, "stderr")
        let record = singleRecord(r)
        XCTAssertEqual(record.string("source"), imageURL("tiny.jpg").replacingOccurrences(of: "http://", with: "http://alice:***@"))
        for file in regularFiles(under: cacheDir) {
            let bytes = try Data(contentsOf: file)
            XCTAssertNil(bytes.range(of: Data(password.utf8)), "\(file.path) holds the password")
        }
        for args in [["ls"], ["ls", "--json"], ["info", url], ["info", url, "--json"], ["stats", "--json"]] {
            let listed = try cache(args)
            assertExit(listed, 0)
            assertNoPassword(listed.stdoutText + listed.stderr, "cache \(args.joined(separator: " "))")
        }
        XCTAssertTrue(try cache(["ls"]).stdoutText.contains("alice:***@"), "cache ls shows the redacted source")
        let found = try cache(["info", url, "--json"]).json.compactMap { $0.string("key") }
        XCTAssertTrue(found.contains(record.string("key") ?? "-"), "cache info SOURCE finds the entry by its credentials: \(found)")
        let other = try cache(["info", credentialed(imageURL("tiny.jpg"), password: "wrong"), "--json"])
        XCTAssertTrue(other.json.isEmpty, "another password finds nothing:\n\(other)")
    }

    func testFailingCredentialedURLNamesItWithoutThePassword() throws {
        let url = credentialed(server.url("/status/404"), password: password)
        let r = try get([url, "--json", "-o", file("out.jpg").path])
        assertExit(r, 5)
        assertFailureRecord(r, code: "http_status")
        assertNoPassword(r.stdoutText, "the failure record")
        assertOneErrorLine(r, containing: "alice:***@")
        assertNoPassword(r.stderr, "the error line")
        // A source that does not parse is named without its password too.
        let bad = try get(["http://alice:\(password)@bad host/a.jpg"])
        assertExit(bad, 2)
        assertNoPassword(bad.stderr, "the usage error")
    }

    func testDifferentPasswordsGiveDifferentKeys() throws {
        let first = try get([credentialed(imageURL("tiny.jpg"), password: "one"), "--json", "-o", file("a.jpg").path])
        let second = try get([credentialed(imageURL("tiny.jpg"), password: "two"), "--json", "-o", file("b.jpg").path])
        let again = try get([credentialed(imageURL("tiny.jpg"), password: "one"), "--json", "-o", file("c.jpg").path])
        let plain = try get([imageURL("tiny.jpg"), "--json", "-o", file("d.jpg").path])
        for r in [first, second, again, plain] { assertExit(r, 0) }
        let keys = [first, second, again, plain].map { singleRecord($0).string("key") ?? "" }
        XCTAssertNotEqual(keys[0], keys[1], "two passwords, two keys")
        XCTAssertEqual(keys[0], keys[2], "the same password, the same key")
        XCTAssertNotEqual(keys[0], keys[3], "credentials and none, two keys")
        XCTAssertEqual(singleRecord(second).string("cache"), "miss", "another password is not served the first one's image")
        XCTAssertEqual(singleRecord(again).string("cache"), "hit")
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg")), 3)
    }

    func testSecretIsA0600FileMadeOnlyForCredentials() throws {
        let secret = cacheDir.appendingPathComponent("v1/secret")
        assertExit(try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path]), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: secret.path), "a URL without credentials makes no secret")

        assertExit(try get([credentialed(imageURL("tiny.jpg"), password: password), "-o", file("b.jpg").path]), 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: secret.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "the secret is 0600")
        XCTAssertEqual((attributes[.size] as? NSNumber)?.intValue, 32, "32 random bytes")
    }

    func testUnsafeSecretIsAnErrorNamingIt() throws {
        let url = credentialed(imageURL("tiny.jpg"), password: password)
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        let secret = cacheDir.appendingPathComponent("v1/secret")

        XCTAssertEqual(chmod(secret.path, 0o644), 0)
        var r = try get([url, "--force-refresh", "-o", file("b.jpg").path])
        assertExit(r, 4)
        assertOneErrorLine(r, containing: secret.path)
        assertNoPassword(r.stderr, "the error line")

        try FileManager.default.removeItem(at: secret)
        try Data("short".utf8).write(to: secret)
        XCTAssertEqual(chmod(secret.path, 0o600), 0)
        r = try get([url, "--force-refresh", "-o", file("c.jpg").path])
        assertExit(r, 4)
        assertOneErrorLine(r, containing: secret.path)

        try FileManager.default.removeItem(at: secret)
        try FileManager.default.createSymbolicLink(atPath: secret.path, withDestinationPath: "/etc/hostname")
        r = try get([url, "--force-refresh", "-o", file("d.jpg").path])
        assertExit(r, 4)
        assertOneErrorLine(r, containing: secret.path)

        // Sources without credentials never read it.
        assertExit(try get([imageURL("tiny.jpg"), "-o", file("e.jpg").path]), 0)
    }

    /// A `v1` that is a symbolic link would put the secret (or read a planted one) outside the cache.
    func testSecretIsNeverMadeThroughALinkedDirectory() throws {
        let elsewhere = file("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: cacheDir, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: cacheDir.appendingPathComponent("v1").path,
                                                   withDestinationPath: elsewhere.path)
        let r = try get([credentialed(imageURL("tiny.jpg"), password: password), "-o", file("a.jpg").path])
        XCTAssertNotEqual(r.status, 0, "a linked v1 is not used")
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("secret").path),
                       "no secret made outside the cache")
        assertNoPassword(r.stderr, "the error line")
    }
}
