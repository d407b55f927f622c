import Foundation
import XCTest

/// `cache push` and `cache pull [--shard K/N]` end to end: the built binary, a real origin, a real
/// remote store (nginx with WebDAV PUT; moto's S3 with authentication enforced).
final class CachePushPullTests: E2ETestCase {
    private let sources = ["photo.jpg", "small.webp", "alpha.png"]

    /// Fills the local cache from the origin: 6 entries (each source's original and its 64x64 variant).
    private func fillLocalCache() throws {
        for name in sources {
            assertExit(try get([imageURL(name), "-s", "64x64", "-o", file("out-\(name)").path]), 0)
        }
    }

    private func cacheDir(_ name: String) -> String { root.appendingPathComponent(name).path }

    /// `imgfetch cache COMMAND --cache-dir DIR ARGS`.
    private func cache(_ command: String, dir: String, _ args: [String], env: [String: String] = [:]) throws -> RunResult {
        try imgfetch(["cache", command, "--cache-dir", dir] + args, env: env)
    }

    /// Every source is served from `dir` with --cache-only (no origin request).
    private func assertServedLocally(_ dir: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try server.totalRequests()
        for name in sources {
            let r = try imgfetch(["get", "--cache-dir", dir, "--cache-only", imageURL(name), "-s", "64x64", "-o", self.file("again-\(name)").path])
            XCTAssertEqual(r.status, 0, "\(r)", file: file, line: line)
        }
        XCTAssertEqual(try server.totalRequests(), before, "no request reached the origin", file: file, line: line)
    }

    func testPushThenPullThroughNginx() throws {
        let nginx = try NginxDAVServer()
        defer { nginx.stop() }
        try fillLocalCache()
        let remote = nginx.url("/team/cache/")

        let push = try cache("push", dir: cacheDir.path, ["--remote-cache", remote])
        assertExit(push, 0)
        XCTAssertTrue(push.stderr.contains("pushed 6, skipped 0"), push.stderr)
        // Each entry: HEAD of the metadata, PUT of the image, then PUT of the metadata (the commit).
        // nginx logs a request after answering it.
        waitFor("12 uploads in the store's log: \(nginx.requests())") {
            nginx.requests().filter { $0.method == "PUT" }.count >= 12
        }
        let puts = nginx.requests().filter { $0.method == "PUT" }.map(\.uri)
        XCTAssertEqual(puts.count, 12)
        for (index, uri) in puts.enumerated() where uri.hasSuffix(".meta") {
            let key = String(uri.split(separator: "/").last!.prefix(64))
            XCTAssertTrue(puts[..<index].contains { $0.contains(key) && !$0.hasSuffix(".meta") }, "image before metadata: \(puts)")
        }
        // Again: everything is there already (HEAD only).
        let again = try cache("push", dir: cacheDir.path, [], env: ["IMGFETCH_REMOTE_CACHE": remote])
        assertExit(again, 0)
        XCTAssertTrue(again.stderr.contains("pushed 0, skipped 6"), again.stderr)

        // A machine with an empty cache pulls everything and then never asks the origin.
        let other = cacheDir("other")
        let pull = try cache("pull", dir: other, ["--remote-cache", remote])
        assertExit(pull, 0)
        XCTAssertTrue(pull.stderr.contains("pulled 6, skipped 0"), pull.stderr)
        try assertServedLocally(other)
        let pullAgain = try cache("pull", dir: other, ["--remote-cache", remote])
        XCTAssertTrue(pullAgain.stderr.contains("pulled 0, skipped 6"), pullAgain.stderr)

        // Two shards split the entries with no overlap.
        let first = try cache("pull", dir: cacheDir("s1"), ["--remote-cache", remote, "--shard", "1/2"])
        let second = try cache("pull", dir: cacheDir("s2"), ["--remote-cache", remote, "--shard", "2/2"])
        assertExit(first, 0)
        assertExit(second, 0)
        let counts = [first, second].map { r -> Int in
            Int(r.stderr.components(separatedBy: "pulled ").last!.prefix { $0.isNumber }) ?? -1
        }
        // Each shard pulls exactly the keys of its slice (their first 16 hex digits modulo 2; keys
        // vary with the test server's port, so a slice may be empty).
        let keys = Set(puts.filter { $0.hasSuffix(".meta") }.map { String($0.split(separator: "/").last!.prefix(64)) })
        let inFirst = keys.filter { (UInt64($0.prefix(16), radix: 16) ?? 0) % 2 == 0 }.count
        XCTAssertEqual(counts, [inFirst, keys.count - inFirst], "\(first.stderr) \(second.stderr)")
        XCTAssertEqual(counts.reduce(0, +), 6, "\(first.stderr) \(second.stderr)")
    }

    func testPullRefusesACorruptObject() throws {
        let nginx = try NginxDAVServer()
        defer { nginx.stop() }
        try fillLocalCache()
        let remote = nginx.url("/c/")
        assertExit(try cache("push", dir: cacheDir.path, ["--remote-cache", remote]), 0)
        // One stored image changed behind the store's back (same size, other bytes).
        let dir = nginx.root.appendingPathComponent("c")
        let image = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasSuffix(".jpg") })
        var bytes = try Data(contentsOf: dir.appendingPathComponent(image))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: dir.appendingPathComponent(image))

        let other = cacheDir("other")
        let pull = try cache("pull", dir: other, ["--remote-cache", remote])
        assertExit(pull, 1)
        XCTAssertTrue(pull.stderr.contains("pulled 5, skipped 0 (already valid here), failed 1"), pull.stderr)
        XCTAssertTrue(pull.stderr.contains("does not match its metadata"), pull.stderr)
        let ls = try imgfetch(["cache", "ls", "--cache-dir", other, "--json"])
        XCTAssertEqual(ls.stdoutText.split(separator: "\n").count, 5, "the corrupt entry was not stored")
    }

    func testStoreDownFailsWithExitOne() throws {
        try fillLocalCache()
        let port = try LocalPorts.free()
        let push = try cache("push", dir: cacheDir.path, ["--remote-cache", "http://127.0.0.1:\(port)/c/"])
        assertExit(push, 1)
        XCTAssertTrue(push.stderr.contains("connection refused"), push.stderr)
        XCTAssertTrue(push.stderr.contains("failed 6"), push.stderr)
        let pull = try cache("pull", dir: cacheDir("other"), ["--remote-cache", "http://127.0.0.1:\(port)/c/"])
        assertExit(pull, 1)
    }

    func testPrivateResponsesAndURLCredentialsAreNotPushed() throws {
        let nginx = try NginxDAVServer()
        defer { nginx.stop() }
        assertExit(try get([imageURL("photo.jpg", "cc=private,max-age=600"), "-o", file("a.jpg").path]), 0)
        assertExit(try get([imageURL("small.webp", "cc=max-age=600"), "-o", file("b.webp").path]), 0)
        let withUser = imageURL("alpha.png").replacingOccurrences(of: "http://", with: "http://user:pw@")
        assertExit(try get([withUser, "-o", file("c.png").path]), 0)
        let push = try cache("push", dir: cacheDir.path, ["--remote-cache", nginx.url("/c/")])
        assertExit(push, 0)
        // One entry per source (each written to a file of its own format: the source's bytes):
        // only small.webp's is pushed.
        XCTAssertTrue(push.stderr.contains("pushed 1, skipped 2"), push.stderr)
        // nginx logs a request after answering it.
        waitFor("2 uploads in the store's log: \(nginx.requests())") {
            nginx.requests().filter { $0.method == "PUT" }.count >= 2
        }
        let puts = nginx.requests().filter { $0.method == "PUT" }.map(\.uri)
        XCTAssertEqual(puts.count, 2, "\(puts)")
        XCTAssertTrue(puts.allSatisfy { $0.hasSuffix(".webp") || $0.hasSuffix(".meta") }, "\(puts)")
    }

    func testUsageErrors() throws {
        let none = try cache("push", dir: cacheDir.path, [])
        assertExit(none, 2)
        XCTAssertTrue(none.stderr.contains("needs --remote-cache URL"), none.stderr)
        let s3 = try cache("pull", dir: cacheDir.path, ["--remote-cache", "s3://bucket/p"],
                           env: ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""])
        assertExit(s3, 2)
        XCTAssertTrue(s3.stderr.contains("AWS_SECRET_ACCESS_KEY"), s3.stderr)
        let shard = try cache("pull", dir: cacheDir.path, ["--remote-cache", "http://127.0.0.1:1/c/", "--shard", "3/2"])
        assertExit(shard, 2)
    }

    func testPushThenPullThroughS3WithoutShowingTheSecret() throws {
        let moto = try MotoS3Server()
        defer { moto.stop() }
        try fillLocalCache()
        let remote = "s3://\(moto.bucket)/fleet"
        let push = try cache("push", dir: cacheDir.path, ["--remote-cache", remote, "--s3-endpoint", moto.endpoint], env: moto.environment)
        assertExit(push, 0)
        XCTAssertTrue(push.stderr.contains("pushed 6, skipped 0"), push.stderr)
        let other = cacheDir("other")
        let pull = try cache("pull", dir: other, ["--s3-endpoint", moto.endpoint],
                             env: moto.environment.merging(["IMGFETCH_REMOTE_CACHE": remote]) { $1 })
        assertExit(pull, 0)
        XCTAssertTrue(pull.stderr.contains("pulled 6, skipped 0"), pull.stderr)
        try assertServedLocally(other)

        // A wrong secret: refused by the store, the run fails, and no secret is shown.
        var wrong = moto.environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "not-the-secret-\(moto.secretAccessKey.suffix(8))"
        let refused = try cache("pull", dir: cacheDir("third"), ["--remote-cache", remote, "--s3-endpoint", moto.endpoint], env: wrong)
        assertExit(refused, 1)
        XCTAssertTrue(refused.stderr.contains("SignatureDoesNotMatch"), refused.stderr)
        for r in [push, pull, refused] {
            XCTAssertFalse(r.stderr.contains(moto.secretAccessKey) || r.stdoutText.contains(moto.secretAccessKey), "\(r)")
            XCTAssertFalse(r.stderr.contains(wrong["AWS_SECRET_ACCESS_KEY"]!), "\(r)")
        }
    }
}
