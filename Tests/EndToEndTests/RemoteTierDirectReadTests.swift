import Foundation
import XCTest

/// How `get` reads an http:// tier: straight over TCP, so a remote hit never loads libcurl; through
/// libcurl (and so through the proxy) whenever the environment names a proxy.
final class RemoteTierDirectReadTests: E2ETestCase {
    private func record(_ r: RunResult) -> [String: Any] {
        r.stdoutText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first ?? [:]
    }

    /// Fills the tier with one thumbnail and returns the URL asked for and its key.
    private func filledTier(_ store: NginxDAVServer, _ tier: String) throws -> (String, String) {
        let url = imageURL("photo.jpg", "cc=max-age%3D600")
        let fill = try imgfetch(["get", "--cache-dir", file("fill").path, "-s", "64", "--remote-cache", tier, "--json", url,
                                 "-o", file("fill.jpg").path])
        assertExit(fill, 0)
        return (url, try XCTUnwrap(record(fill)["key"] as? String))
    }

    func testARemoteHitLoadsNoLibcurl() throws {
        let store = try NginxDAVServer()
        let tier = store.url("/t/")
        let (url, key) = try filledTier(store, tier)
        let origin = try server.totalRequests()
        let before = store.requests().count
        // LD_DEBUG=files: the dynamic loader names every library it loads on stderr.
        let hit = try imgfetch(["get", "--cache-dir", file("a").path, "-s", "64", "--remote-cache", tier, "--json", url,
                                "-o", file("a.jpg").path], env: ["LD_DEBUG": "files"])
        assertExit(hit, 0)
        XCTAssertEqual(record(hit)["cache"] as? String, "remote")
        XCTAssertEqual(try server.totalRequests(), origin)
        XCTAssertEqual(try Data(contentsOf: file("a.jpg")), try Data(contentsOf: file("fill.jpg")))
        XCTAssertTrue(hit.stderr.contains("file=libc.so.6"), "LD_DEBUG shows what is loaded: \(hit.stderr.prefix(500))")
        XCTAssertFalse(hit.stderr.contains("libcurl"), "a remote hit loaded libcurl")
        let asked = store.requests().dropFirst(before)
        XCTAssertEqual(asked.map(\.method), ["GET", "GET"], "the metadata and the image: \(asked)")
        XCTAssertEqual(Set(asked.map(\.uri)), ["/t/\(key).meta", "/t/\(key).jpg"])
        XCTAssertEqual(asked.map(\.status), [200, 200])
    }

    func testTheLargestMaxBytesReadsTheTier() throws {
        let store = try NginxDAVServer()
        let tier = store.url("/t/")
        let (url, _) = try filledTier(store, tier)
        // --max-bytes takes any size up to Int64.max: the tier's reads are capped by it, never overflow.
        let hit = try imgfetch(["get", "--cache-dir", file("a").path, "-s", "64", "--max-bytes", "9223372036854775807",
                                "--remote-cache", tier, "--json", url, "-o", file("a.jpg").path])
        assertExit(hit, 0)
        XCTAssertEqual(record(hit)["cache"] as? String, "remote")
        XCTAssertEqual(try Data(contentsOf: file("a.jpg")), try Data(contentsOf: file("fill.jpg")))
    }

    func testAResolverThatNeverAnswersIsHeldToTheTimeout() throws {
        // In network and mount namespaces of its own (root only; skipped elsewhere), /etc/resolv.conf
        // names a nameserver on 127.0.0.1 that reads every query and never answers (10 s a try).
        let resolv = file("resolv.conf"), ready = file("dns.ready")
        try Data("nameserver 127.0.0.1\noptions timeout:10 attempts:1\n".utf8).write(to: resolv)
        let script = """
            ip link set lo up && mount --bind "$1" /etc/resolv.conf || exit 97
            timeout 60 python3 -c 'import socket, time
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 53)); print(flush=True); time.sleep(60)' > "$2" &
            dns=$!
            for _ in $(seq 200); do [ -s "$2" ] && break; sleep 0.05; done
            shift 2
            "$@"; status=$?
            kill $dns
            exit $status
            """
        let binary = try XCTUnwrap(E2EPaths.binary)
        let run = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/unshare"),
                                    ["-nm", "sh", "-c", script, "sh", resolv.path, ready.path, binary.path,
                                     "get", "--cache-dir", file("a").path, "--remote-cache", "http://store.test:8080/t/",
                                     "--remote-timeout", "1", "http://127.0.0.1:9/photo.jpg", "-o", file("a.jpg").path],
                                    environment: Imgfetch.baseEnvironment(home: home), timeout: 60)
        if run.status == 97 || !FileManager.default.fileExists(atPath: "/usr/bin/unshare") {
            throw XCTSkip("no network and mount namespaces here: \(run.stderr.prefix(300))")
        }
        // The tier gives up after --remote-timeout (then the origin, unreachable in there, fails).
        XCTAssertLessThan(run.elapsed, 5, "\(run)")
        XCTAssertTrue(run.stderr.contains("remote cache http://store.test:8080/t/"), run.stderr)
        XCTAssertTrue(run.stderr.contains("timed out"), run.stderr)
    }

    func testAProxyInTheEnvironmentIsUsedForTheTier() throws {
        let store = try NginxDAVServer()
        let tier = store.url("/t/")
        let (url, key) = try filledTier(store, tier)
        let proxy = try TestProxy(logFile: file("proxy.log"))
        defer { proxy.stop() }
        let hit = try imgfetch(["get", "--cache-dir", file("a").path, "-s", "64", "--remote-cache", tier, "--json", url,
                                "-o", file("a.jpg").path],
                               env: ["http_proxy": proxy.url, "no_proxy": "", "NO_PROXY": "", "LD_DEBUG": "files"])
        assertExit(hit, 0)
        XCTAssertEqual(record(hit)["cache"] as? String, "remote")
        XCTAssertTrue(proxy.forwarded.contains("GET \(tier)\(key).meta"), "\(proxy.forwarded)")
        XCTAssertTrue(hit.stderr.contains("libcurl"), "the tier was read without libcurl despite the proxy")
    }
}
