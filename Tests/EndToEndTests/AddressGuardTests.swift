import Foundation
import XCTest

/// The address guard (`--deny-address CIDR`, `--deny-private-addresses`) and `--resolve`, with two
/// loopback addresses: the test server on 127.0.0.1 (allowed) and Python's http.server on
/// 127.0.0.2 (denied by `--deny-address 127.0.0.2/32`), each serving the fixtures. Checked on the
/// address connected to: directly, through a redirect, through `--resolve`.
final class AddressGuardTests: E2ETestCase {
    private var second: Process?
    private var secondPort = 0

    override func setUpWithError() throws {
        try super.setUpWithError()
        let port = try LocalPorts.free()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-m", "http.server", String(port), "--bind", "127.0.0.2", "--directory", E2EPaths.fixturesDir.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        second = p
        secondPort = port
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !Self.listening("127.0.0.2", port) { usleep(50_000) }
        guard Self.listening("127.0.0.2", port) else { throw XCTSkip("cannot listen on 127.0.0.2") }
    }

    override func tearDownWithError() throws {
        second?.terminate()
        second?.waitUntilExit()
        try super.tearDownWithError()
    }

    private static func listening(_ host: String, _ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &a.sin_addr)
        return withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private var deniedURL: String { "http://127.0.0.2:\(secondPort)/tiny.jpg" }

    private func fetch(_ url: String, _ extra: [String], out: String = "a.jpg") throws -> RunResult {
        try get([url, "--json", "--force-refresh", "-o", file(out).path] + extra)
    }

    private func assertDenied(_ r: RunResult, _ address: String, file: StaticString = #filePath, line: UInt = #line) {
        assertExit(r, 1, file: file, line: line)
        assertFailureRecord(r, code: "denied_address", file: file, line: line)
        XCTAssertTrue(r.stdoutText.contains(address), "names the address: \(r.stdoutText)", file: file, line: line)
    }

    func testADeniedAddressIsNeverConnectedTo() throws {
        assertExit(try fetch(deniedURL, []), 0)   // reachable without the guard
        assertDenied(try fetch(deniedURL, ["--deny-address", "127.0.0.2/32"]), "127.0.0.2")
        assertDenied(try fetch(deniedURL, ["--deny-address", "::ffff:127.0.0.0/104"]), "127.0.0.2")
        assertExit(try fetch(imageURL("tiny.jpg"), ["--deny-address", "127.0.0.2/32"]), 0)
        assertDenied(try fetch(imageURL("tiny.jpg"), ["--deny-private-addresses"]), "127.0.0.1")
    }

    func testEveryRedirectHopIsChecked() throws {
        let hop = server.url("/redirect?to=" + deniedURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        assertExit(try fetch(hop, []), 0)
        assertDenied(try fetch(hop, ["--deny-address", "127.0.0.2"]), "127.0.0.2")
        // An alternative on a denied address is refused too; the next one is used.
        let r = try fetch(deniedURL, ["--deny-address", "127.0.0.2", "--alt", imageURL("tiny.jpg")])
        assertExit(r, 0)
    }

    func testResolveNamesTheAddressAndTheGuardChecksIt() throws {
        let name = "images.guard.test"
        let viaSecond = "http://\(name):\(secondPort)/tiny.jpg"
        assertExit(try fetch(viaSecond, ["--resolve", "\(name):\(secondPort):127.0.0.2"]), 0)
        assertDenied(try fetch(viaSecond, ["--resolve", "\(name):\(secondPort):127.0.0.2", "--deny-address", "127.0.0.2/32"]),
                     "127.0.0.2")
        let viaFirst = "http://\(name):\(server.port)/img/tiny.jpg"
        assertExit(try fetch(viaFirst, ["--resolve", "\(name):\(server.port):127.0.0.1", "--deny-address", "127.0.0.2/32"]), 0)
        for bad in ["\(name):80", "\(name):0:127.0.0.1", "\(name):80:not-an-address", ":80:127.0.0.1"] {
            let r = try fetch(viaFirst, ["--resolve", bad])
            assertExit(r, 2)
            XCTAssertTrue(r.stderr.contains("--resolve"), r.stderr)
        }
    }

    func testANAT64FormOfALoopbackAddressIsDenied() throws {
        // 64:ff9b::7f00:1 is 127.0.0.1 through a NAT64 gateway: never connected to.
        let name = "nat64.guard.test"
        let r = try fetch("http://\(name):\(server.port)/img/tiny.jpg",
                          ["--resolve", "\(name):\(server.port):[64:ff9b::7f00:1]", "--deny-private-addresses"])
        assertDenied(r, "64:ff9b::7f00:1")
    }

    func testTheGuardWithAProxyIsAUsageErrorUnlessNoProxyCoversAll() throws {
        let r = try fetch(imageURL("tiny.jpg"), ["--deny-address", "10.0.0.0/8", "-x", "http://127.0.0.1:1"])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("proxy"), r.stderr)
        assertExit(try fetch(imageURL("tiny.jpg"), ["--deny-address", "10.0.0.0/8", "-x", "http://127.0.0.1:1", "--noproxy", "*"]), 0)
        assertExit(try fetch(imageURL("tiny.jpg"), ["--deny-address", "10.0.0.0/8"], ), 0)
        let bad = try fetch(imageURL("tiny.jpg"), ["--deny-address", "example.com"])
        assertExit(bad, 2)
        XCTAssertTrue(bad.stderr.contains("--deny-address"), bad.stderr)
    }

    func testTheTierIsExemptAndAResolvedResponseIsNeverUploaded() throws {
        let store = try NginxDAVServer()
        let tier = store.url("/t/")
        let url = imageURL("tiny.jpg", "cc=max-age%3D600")
        let name = "images.guard.test"
        let resolved = "http://\(name):\(server.port)/img/tiny.jpg?cc=max-age%3D600"
        assertExit(try imgfetch(["get", "--cache-dir", work.appendingPathComponent("r").path, "--remote-cache", tier,
                                 "--resolve", "\(name):\(server.port):127.0.0.1", resolved, "-o", file("r.jpg").path]), 0)
        XCTAssertEqual(store.requests().filter { $0.method == "PUT" }.count, 0, "--resolve: never uploaded: \(store.requests())")

        assertExit(try imgfetch(["get", "--cache-dir", work.appendingPathComponent("a").path, "--remote-cache", tier,
                                 url, "-o", file("a.jpg").path]), 0)
        // nginx logs a request after answering it.
        waitFor("an upload in the store's log: \(store.requests())") {
            store.requests().contains { $0.method == "PUT" }
        }
        XCTAssertGreaterThan(store.requests().filter { $0.method == "PUT" }.count, 0)
        // The tier on 127.0.0.1 is read although every private address is denied to the origin.
        let hit = try imgfetch(["get", "--cache-dir", work.appendingPathComponent("b").path, "--remote-cache", tier,
                                "--deny-private-addresses", "--json", url, "-o", file("b.jpg").path])
        assertExit(hit, 0)
        XCTAssertTrue(hit.stdoutText.contains("\"cache\":\"remote\""), hit.stdoutText)
    }
}
