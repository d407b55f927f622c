import Foundation
import XCTest

/// https against a server on 127.0.0.1 with a certificate from a CA the test makes (openssl), and a
/// forward proxy (Tests/Support/connect_proxy.py). The base environment clears CURL_CA_BUNDLE,
/// SSL_CERT_FILE, SSL_CERT_DIR and every *_proxy variable first.
final class TLSProxyTests: E2ETestCase {
    private var certs: TestCertificates!
    private var tlsServer: TestServer!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let dir = root.appendingPathComponent("tls", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        certs = try TestCertificates(in: dir)
        tlsServer = try TestServer(tls: (certs.serverCertificate, certs.serverKey))
    }

    override func tearDownWithError() throws {
        tlsServer?.stop()
        try super.tearDownWithError()
    }

    private var secureURL: String { tlsServer.url("/img/tiny.jpg") }
    private let noProxyCleared = ["no_proxy": "", "NO_PROXY": ""]

    private func fetch(_ extra: [String], env: [String: String] = [:]) throws -> RunResult {
        try get([secureURL, "--json", "-o", file("out.jpg").path] + extra, env: env)
    }

    func testCacertPassesAndNoCAFailsWithTheTLSCode() throws {
        let trusted = try fetch(["--cacert", certs.caCertificate])
        assertExit(trusted, 0)
        assertImageFile(file("out.jpg"), .jpeg)

        let untrusted = try fetch(["--force-refresh"])
        assertExit(untrusted, 6)
        assertFailureRecord(untrusted, code: "tls")
    }

    func testInsecurePassesAndWarnsEveryTime() throws {
        for extra in [["-k"], ["-k", "--quiet"], ["--insecure", "--force-refresh"]] {
            let r = try fetch(extra)
            assertExit(r, 0)
            XCTAssertTrue(r.stderr.contains("warning: --insecure"), "\(extra): \(r.stderr)")
        }
        let plain = try fetch(["--cacert", certs.caCertificate, "--force-refresh"])
        XCTAssertFalse(plain.stderr.contains("--insecure"), plain.stderr)
    }

    func testEnvironmentVariablesFollowCurlsPrecedence() throws {
        let ca = certs.caCertificate
        let missing = root.appendingPathComponent("missing.pem").path
        // Each with --force-refresh: every run makes a connection.
        func run(_ env: [String: String], _ extra: [String] = []) throws -> Int32 {
            try fetch(["--force-refresh"] + extra, env: env).status
        }
        XCTAssertEqual(try run(["CURL_CA_BUNDLE": ca]), 0)
        XCTAssertEqual(try run(["SSL_CERT_FILE": ca]), 0)
        XCTAssertEqual(try run(["CURL_CA_BUNDLE": missing, "SSL_CERT_FILE": ca]), 6, "CURL_CA_BUNDLE wins over SSL_CERT_FILE")
        XCTAssertEqual(try run(["CURL_CA_BUNDLE": missing], ["--cacert", ca]), 0, "--cacert wins over CURL_CA_BUNDLE")
        XCTAssertEqual(try run(["CURL_CA_BUNDLE": ""]), 6, "an empty variable is unset: the system bundle does not know the test CA")
    }

    func testCapathAndSSLCertDir() throws {
        let dir = root.appendingPathComponent("capath", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let hash = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/openssl"), ["x509", "-hash", "-noout", "-in", certs.caCertificate],
                                     environment: ProcessInfo.processInfo.environment)
        let name = hash.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) + ".0"
        try FileManager.default.copyItem(atPath: certs.caCertificate, toPath: dir.appendingPathComponent(name).path)
        assertExit(try fetch(["--capath", dir.path]), 0)
        assertExit(try fetch(["--force-refresh"], env: ["SSL_CERT_DIR": dir.path]), 0)
    }

    func testProxyOptionAndVariablesRouteThroughTheProxy() throws {
        let proxy = try TestProxy(logFile: root.appendingPathComponent("proxy.log"))
        defer { proxy.stop() }
        let plainURL = imageURL("tiny.jpg")
        let port = tlsServer.port

        assertExit(try get([plainURL, "-o", file("a.jpg").path, "-x", proxy.url], env: noProxyCleared), 0)
        XCTAssertEqual(proxy.forwarded.last, "GET \(plainURL)", "-x: http through the proxy")

        assertExit(try fetch(["-x", proxy.url, "--cacert", certs.caCertificate], env: noProxyCleared), 0)
        XCTAssertEqual(proxy.forwarded.last, "CONNECT 127.0.0.1:\(port)", "-x: https tunnelled with CONNECT")

        var env = noProxyCleared
        env["https_proxy"] = proxy.url
        assertExit(try fetch(["--cacert", certs.caCertificate, "--force-refresh"], env: env), 0)
        XCTAssertEqual(proxy.forwarded.count, 3, "https_proxy routes through it: \(proxy.forwarded)")

        env = noProxyCleared
        env["http_proxy"] = proxy.url
        assertExit(try get([plainURL, "-o", file("a.jpg").path, "--force-refresh"], env: env), 0)
        XCTAssertEqual(proxy.forwarded.count, 4, "http_proxy routes through it: \(proxy.forwarded)")

        let before = proxy.forwarded.count
        assertExit(try get([plainURL, "-o", file("a.jpg").path, "--force-refresh", "-x", proxy.url, "--noproxy", "127.0.0.1"],
                           env: noProxyCleared), 0)
        env["no_proxy"] = "127.0.0.1"
        assertExit(try get([plainURL, "-o", file("a.jpg").path, "--force-refresh"], env: env), 0)
        XCTAssertEqual(proxy.forwarded.count, before, "--noproxy and no_proxy go direct: \(proxy.forwarded)")
    }

    func testUnreachableProxyFailsAsAConnectionProblem() throws {
        let r = try get([imageURL("tiny.jpg"), "--json", "-o", file("a.jpg").path, "-x", "http://127.0.0.1:1"], env: noProxyCleared)
        assertExit(r, 6)
        XCTAssertEqual(try server.totalRequests(), 0, "nothing went direct")
    }
}

extension TLSProxyTests {
    func testTheTLSErrorSaysWhichCertificatesWereTrusted() throws {
        let r = try fetch([])
        assertExit(r, 6)
        XCTAssertTrue(r.stderr.contains("trusting the system CA bundle"), r.stderr)
        let otherCA = root.appendingPathComponent("other-ca.pem").path
        try TestCertificates.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", root.appendingPathComponent("other.key").path,
                                      "-out", otherCA, "-days", "2", "-subj", "/CN=another CA"])
        let other = try fetch([], env: ["SSL_CERT_FILE": otherCA])
        assertExit(other, 6)
        XCTAssertTrue(other.stderr.contains("trusting the CAs of SSL_CERT_FILE"), other.stderr)
    }
}
