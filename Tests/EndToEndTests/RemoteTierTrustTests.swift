import Foundation
import XCTest

/// The remote tier's TLS trust is its own (issue 20 M4): the origin's `--cacert` and `-k` (on the
/// command line or in a config file) never apply to an https:// tier, which has `--remote-cacert`
/// and `--remote-insecure`; and what is fetched with `-k` is never uploaded to it. The origin is
/// e2e_server.py over https, the tier nginx WebDAV over https, both with certificates of one test CA.
final class RemoteTierTrustTests: E2ETestCase {
    private var certs: TestCertificates!
    private var origin: TestServer!
    private var store: NginxDAVServer!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let dir = root.appendingPathComponent("tls", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        certs = try TestCertificates(in: dir)
        origin = try TestServer(tls: (certs.serverCertificate, certs.serverKey))
        store = try NginxDAVServer(tls: (certs.serverCertificate, certs.serverKey))
    }

    override func tearDownWithError() throws {
        origin?.stop()
        store?.stop()
        try super.tearDownWithError()
    }

    private var tier: String { store.url("/t/") }
    private func url(_ n: Int) -> String { origin.url("/img/tiny.jpg?cc=max-age%3D600&n=\(n)") }
    private func cache(_ name: String) -> String { work.appendingPathComponent(name).path }
    private var puts: Int { store.requests().filter { $0.method == "PUT" }.count }
    private var answered: Int { store.requests().count }

    private func run(_ n: Int, cache name: String, _ extra: [String]) throws -> RunResult {
        try imgfetch(["get", "--cache-dir", cache(name), "--no-config", "--remote-cache", tier, "--json",
                      url(n), "-o", file("out-\(n).jpg").path] + extra)
    }

    private func record(_ r: RunResult) -> [String: Any]? {
        r.stdoutText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first
    }

    private func warnings(_ r: RunResult) -> [String] { (record(r)?["warnings"] as? [String]) ?? [] }

    func testTheOriginsCacertIsNotTheTiers() throws {
        // The origin's CA signed the tier's certificate too: --cacert alone must still not make the
        // tier trusted (it used to replace the tier's CAs).
        let r = try run(1, cache: "a", ["--cacert", certs.caCertificate])
        assertExit(r, 0)
        XCTAssertEqual(puts, 0, "the tier is not trusted through the origin's --cacert: \(store.requests())")
        XCTAssertTrue(warnings(r).contains { $0.contains("tls") || $0.contains("certificate") || $0.contains("SSL") }, "\(warnings(r))")

        let trusted = try run(2, cache: "b", ["--cacert", certs.caCertificate, "--remote-cacert", certs.caCertificate])
        assertExit(trusted, 0)
        waitFor("an upload in the store's log: \(store.requests())") { puts > 0 }
        XCTAssertGreaterThan(puts, 0, "--remote-cacert trusts the tier: \(store.requests())")
        XCTAssertFalse(trusted.stderr.contains("warning: --"), trusted.stderr)
    }

    func testInsecureForTheOriginNeitherDisablesTheTiersChecksNorUploads() throws {
        // The tier is filled by a verified run; then a run with -k (and no tier CA) must not read it
        // (anyone on the path could have answered for it) nor write to it.
        assertExit(try run(1, cache: "a", ["--cacert", certs.caCertificate, "--remote-cacert", certs.caCertificate]), 0)
        waitFor("an upload in the store's log: \(store.requests())") { puts > 0 }
        let filled = puts
        XCTAssertGreaterThan(filled, 0)
        let k = try run(1, cache: "b", ["-k"])
        assertExit(k, 0)
        XCTAssertEqual(record(k)?["cache"] as? String, "miss", "no hit from an unverified tier: \(k.stdoutText)")
        XCTAssertTrue(k.stderr.contains("warning: --insecure"), k.stderr)
        XCTAssertEqual(puts, filled)

        // -k with the tier trusted: it is read, but what the unverified origin served is never uploaded.
        let before = answered
        let k2 = try run(3, cache: "c", ["-k", "--remote-cacert", certs.caCertificate])
        assertExit(k2, 0)
        XCTAssertEqual(warnings(k2), [], "the tier is trusted")
        let hit = try run(1, cache: "d", ["-k", "--remote-cacert", certs.caCertificate])
        XCTAssertEqual(record(hit)?["cache"] as? String, "remote", hit.stdoutText)
        waitFor("the tier's answer in its log: \(store.requests())") { answered > before }
        XCTAssertGreaterThan(answered, before, "the trusted tier is asked")
        XCTAssertEqual(puts, filled, "nothing fetched with -k is uploaded: \(store.requests())")
    }

    func testRemoteInsecureWarnsNamingTheTier() throws {
        let r = try run(1, cache: "a", ["--cacert", certs.caCertificate, "--remote-insecure", "--quiet"])
        assertExit(r, 0)
        XCTAssertTrue(r.stderr.contains("warning: --remote-insecure: the remote cache's certificates"), r.stderr)
        XCTAssertFalse(r.stderr.contains("warning: --insecure"), r.stderr)
        XCTAssertGreaterThan(puts, 0, "--remote-insecure: the tier is used unverified")
    }

    func testAConfigFilesInsecureIsTheOriginsOnly() throws {
        let config = file("config")
        try "insecure\nremote-cache \(tier)\n".write(to: config, atomically: true, encoding: .utf8)
        let r = try imgfetch(["get", "--cache-dir", cache("a"), "--config", config.path, "--json", url(1), "-o", file("a.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(puts, 0, "config insecure: \(store.requests())")

        try "remote-cacert \(certs.caCertificate)\ncacert \(certs.caCertificate)\nremote-cache \(tier)\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let trusted = try imgfetch(["get", "--cache-dir", cache("b"), "--config", config.path, "--json", url(2), "-o", file("b.jpg").path])
        assertExit(trusted, 0)
        waitFor("an upload in the store's log: \(store.requests())") { puts > 0 }
        XCTAssertGreaterThan(puts, 0, "config remote-cacert: \(store.requests())")
    }

    func testCachePushHasTheTiersOwnTrust() throws {
        assertExit(try run(1, cache: "a", ["--cacert", certs.caCertificate, "--remote-cache-mode", "read"]), 0)
        XCTAssertEqual(puts, 0)
        let refused = try imgfetch(["--cache-dir", cache("a"), "cache", "push", "--remote-cache", tier])
        assertExit(refused, 1)
        let pushed = try imgfetch(["--cache-dir", cache("a"), "cache", "push", "--remote-cache", tier, "--remote-cacert", certs.caCertificate])
        assertExit(pushed, 0)
        XCTAssertGreaterThan(puts, 0, pushed.stderr)
        let insecure = try imgfetch(["--cache-dir", cache("a"), "cache", "push", "--remote-cache", tier, "--remote-insecure"])
        assertExit(insecure, 0)
        XCTAssertTrue(insecure.stderr.contains("warning: --remote-insecure"), insecure.stderr)
    }
}
