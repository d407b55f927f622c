import Foundation
import XCTest

/// `-x` and `--noproxy` apply to the remote tier as `http_proxy` and `no_proxy` do (issue 20 L4):
/// its GETs (which then go through libcurl, not the direct client) and its PUTs go through the
/// proxy (Tests/Support/connect_proxy.py), and `--noproxy` naming its host sends them direct.
final class RemoteTierProxyTests: E2ETestCase {
    private let noProxyCleared = ["no_proxy": "", "NO_PROXY": ""]
    private func cache(_ name: String) -> String { work.appendingPathComponent(name).path }

    private func record(_ r: RunResult) -> [String: Any]? {
        r.stdoutText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first
    }

    func testProxyOptionCarriesTheTiersReadsAndUploads() throws {
        let store = try NginxDAVServer()
        let proxy = try TestProxy(logFile: root.appendingPathComponent("proxy.log"))
        defer { proxy.stop() }
        let tier = store.url("/t/")
        let url = imageURL("photo.jpg", "cc=max-age%3D600")

        let first = try imgfetch(["get", "--cache-dir", cache("a"), "--remote-cache", tier, "-x", proxy.url, "-s", "64",
                                  "--json", url, "-o", file("a.jpg").path], env: noProxyCleared)
        assertExit(first, 0)
        // nginx logs a request after answering it: wait until its log holds what the proxy forwarded.
        func tierRequests(_ method: String) -> (viaProxy: Int, direct: Int) {
            (proxy.forwarded.filter { $0.contains(tier) && $0.hasPrefix("\(method) ") }.count,
             store.requests().filter { $0.method == method }.count)
        }
        waitFor("the store's log to show the uploads and lookups the proxy forwarded: \(proxy.forwarded) vs \(store.requests())") {
            let puts = tierRequests("PUT"), gets = tierRequests("GET")
            return puts.viaProxy == puts.direct && gets.viaProxy == gets.direct
        }
        let direct = store.requests()
        let viaProxy = proxy.forwarded.filter { $0.contains(tier) }
        XCTAssertEqual(viaProxy.filter { $0.hasPrefix("PUT ") }.count, direct.filter { $0.method == "PUT" }.count,
                       "every upload went through the proxy: \(proxy.forwarded) vs \(direct)")
        XCTAssertGreaterThan(viaProxy.filter { $0.hasPrefix("PUT ") }.count, 0, "\(proxy.forwarded)")
        XCTAssertEqual(viaProxy.filter { $0.hasPrefix("GET ") }.count, direct.filter { $0.method == "GET" }.count,
                       "every lookup went through the proxy: \(proxy.forwarded) vs \(direct)")
        XCTAssertTrue(proxy.forwarded.contains("GET \(url)"), "the origin too: \(proxy.forwarded)")

        // A remote hit, its reads through the proxy.
        let before = proxy.forwarded.count
        let hit = try imgfetch(["get", "--cache-dir", cache("b"), "--remote-cache", tier, "-x", proxy.url, "-s", "64",
                                "--json", url, "-o", file("b.jpg").path], env: noProxyCleared)
        assertExit(hit, 0)
        XCTAssertEqual(record(hit)?["cache"] as? String, "remote", hit.stdoutText)
        let reads = proxy.forwarded.dropFirst(before).filter { $0.hasPrefix("GET \(tier)") }
        XCTAssertEqual(reads.count, 2, "the image and its metadata: \(proxy.forwarded)")

        // --noproxy naming the tier's host: nothing through the proxy, for the tier or the origin.
        let quiet = proxy.forwarded.count
        let bypass = try imgfetch(["get", "--cache-dir", cache("c"), "--remote-cache", tier, "-x", proxy.url, "--noproxy", "127.0.0.1",
                                   "-s", "64", "--json", url, "-o", file("c.jpg").path], env: noProxyCleared)
        assertExit(bypass, 0)
        XCTAssertEqual(record(bypass)?["cache"] as? String, "remote", bypass.stdoutText)
        XCTAssertEqual(proxy.forwarded.count, quiet, "\(proxy.forwarded)")
    }

    func testAnUnreachableProxyIsAFailingTierNotADirectOne() throws {
        let store = try NginxDAVServer()
        let tier = store.url("/t/")
        // The origin through a working proxy would be needed to deliver; here both are unreachable:
        // the image fails, and the tier is never reached around the proxy either.
        let r = try imgfetch(["get", "--cache-dir", cache("a"), "--remote-cache", tier, "-x", "http://127.0.0.1:1",
                              "--json", imageURL("photo.jpg"), "-o", file("a.jpg").path], env: noProxyCleared)
        assertExit(r, 6)
        XCTAssertEqual(store.requests().count, 0, "nothing went direct to the tier: \(store.requests())")
        XCTAssertEqual(try server.totalRequests(), 0, "nor to the origin")
    }
}
