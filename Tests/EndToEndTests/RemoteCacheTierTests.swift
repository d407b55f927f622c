import Foundation
import XCTest

/// The remote cache tier with real parts: the built binary, the origin (e2e_server.py) and nginx
/// with WebDAV PUT as the store, each worker with its own local cache directory.
final class RemoteCacheTierTests: E2ETestCase {
    private func cache(_ name: String) -> String { work.appendingPathComponent(name).path }

    private func records(_ r: RunResult) -> [[String: Any]] {
        r.stdoutText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    func testAWorkerFillsTheTierAndAnotherGetsEveryImageWithoutTheOrigin() throws {
        let store = try NginxDAVServer()
        let tier = store.url("/tier/")
        let urls = [imageURL("photo.jpg", "cc=max-age%3D600"), imageURL("portrait.jpg", "cc=max-age%3D600")]
        let list = try writeList(urls)
        let a = try imgfetch(["prefetch", "--cache-dir", cache("a"), "-s", "64", "--remote-cache", tier, list.path])
        assertExit(a, 0)
        XCTAssertTrue(a.stderr.contains("2 ok (0 cached, 0 remote, 0 low-data)"), a.stderr)
        // nginx logs a request after answering it.
        waitFor("9 uploads in the store's log: \(store.requests())") {
            store.requests().filter { $0.method == "PUT" }.count >= 9
        }
        let puts = store.requests().filter { $0.method == "PUT" }
        XCTAssertEqual(puts.count, 9, "variant and original, image and meta each, and the origin's robots.txt answer: \(puts)")
        XCTAssertEqual(puts.filter { $0.uri.hasSuffix(".policy") }.count, 1, "\(puts)")
        XCTAssertEqual(try server.requestCount("/robots.txt"), 1)
        let origin = try server.totalRequests()

        let b = try imgfetch(["prefetch", "--cache-dir", cache("b"), "-s", "64", "--remote-cache", tier, "--json", list.path])
        assertExit(b, 0)
        XCTAssertEqual(try server.totalRequests(), origin, "no request reached the origin, robots.txt included (the tier's copy)")
        XCTAssertTrue(b.stderr.contains("2 ok (2 cached, 2 remote, 0 low-data)"), b.stderr)
        let results = records(b).filter { $0["summary"] == nil }
        XCTAssertEqual(results.map { $0["cache"] as? String }, ["remote", "remote"])
        XCTAssertEqual(records(b).last?["remote"] as? Int, 2)

        // Now local: a third run on b's cache never asks the store.
        let before = store.requests().count
        let again = try imgfetch(["get", "--cache-dir", cache("b"), "-s", "64", "--remote-cache", tier, "--json", urls[0]])
        assertExit(again, 0)
        XCTAssertEqual(records(again).first?["cache"] as? String, "hit")
        XCTAssertEqual(store.requests().count, before)
    }

    /// robots.txt is asked for once by all the caches of one tier: a second cache that starts after
    /// the first's upload landed takes the tier's copy, even for images the tier does not have.
    func testASecondCacheTakesRobotsTxtFromTheTier() throws {
        let store = try NginxDAVServer()
        let tier = store.url("/r/")
        _ = try TestServer.rawGet(port: server.port, path: "/__robots?body=User-agent%3A%20%2A%0ADisallow%3A%20%2Fimg%2Ftiny")
        let a = try imgfetch(["prefetch", "--cache-dir", cache("a"), "--remote-cache", tier, "--json",
                              try writeList([imageURL("photo.jpg", "v=a")], name: "a.txt").path])
        assertExit(a, 0)
        waitFor("robots.txt's answer in the store: \(store.requests())") {
            store.requests().contains { $0.method == "PUT" && $0.uri.hasSuffix(".policy") }
        }
        let b = try imgfetch(["prefetch", "--cache-dir", cache("b"), "--remote-cache", tier, "--json",
                              try writeList([imageURL("small.webp", "v=b"), imageURL("tiny.jpg", "v=b")], name: "b.txt").path])
        assertExit(b, 0)
        XCTAssertEqual(records(b).first { ($0["source"] as? String)?.contains("tiny.jpg") == true }?["status"] as? String, "skipped",
                       "the tier's copy decides: \(b)")
        XCTAssertEqual(try server.requestCount("/robots.txt"), 1, "the second cache asked the origin for robots.txt")
        XCTAssertEqual(try server.requestCount(imagePath("small.webp", "v=b")), 1, "an image the tier lacks comes from the origin")
    }

    func testACorruptObjectIsRefusedAndTheOriginUsed() throws {
        let store = try NginxDAVServer()
        let tier = store.url("/t/")
        let url = imageURL("photo.jpg", "cc=max-age%3D600&v=corrupt")
        let first = try imgfetch(["get", "--cache-dir", cache("a"), "--remote-cache", tier, "--json", url, "-o", file("a.jpg").path])
        assertExit(first, 0)
        let key = try XCTUnwrap(records(first).first?["key"] as? String)
        let image = store.root.appendingPathComponent("t/\(key).jpg")
        var bytes = try Data(contentsOf: image)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: image)
        let origin = try server.totalRequests()
        let second = try imgfetch(["get", "--cache-dir", cache("b"), "--remote-cache", tier, "--json", url, "-o", file("b.jpg").path])
        assertExit(second, 0)
        let record = try XCTUnwrap(records(second).first)
        XCTAssertEqual(record["cache"] as? String, "miss")
        XCTAssertTrue(((record["warnings"] as? [String]) ?? []).contains { $0.contains(key) && $0.contains("checksum") }, "\(record)")
        XCTAssertEqual(try server.totalRequests(), origin + 1)
        XCTAssertEqual(try Data(contentsOf: file("b.jpg")), try Data(contentsOf: file("a.jpg")))
    }

    func testAFailingStoreNeverFailsTheImage() throws {
        let store = try NginxDAVServer(mode: .failing(500))
        let r = try imgfetch(["get", "--cache-dir", cache("a"), "--remote-cache", store.url("/t/"), "--json",
                              imageURL("photo.jpg"), "-o", file("a.jpg").path])
        assertExit(r, 0)
        let warnings = (records(r).first?["warnings"] as? [String]) ?? []
        XCTAssertTrue(warnings.contains { $0.contains("500") }, "\(warnings)")
        XCTAssertTrue(warnings.contains { $0.contains("upload failed") }, "\(warnings)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: file("a.jpg").path))
    }

    func testPrivateAndCredentialedResponsesAreNeverUploaded() throws {
        let store = try NginxDAVServer()
        let tier = store.url("/t/")
        assertExit(try imgfetch(["get", "--cache-dir", cache("a"), "--remote-cache", tier,
                                 imageURL("photo.jpg", "cc=private%2C%20max-age%3D600"), "-o", file("a.jpg").path]), 0)
        assertExit(try imgfetch(["get", "--cache-dir", cache("a"), "--remote-cache", tier, "-b", "session=s3cret",
                                 imageURL("photo.jpg", "cc=max-age%3D600"), "-o", file("b.jpg").path]), 0)
        // The origin's robots.txt answer (fetched without the line's headers) is shared; its images are not.
        XCTAssertEqual(store.requests().filter { $0.method == "PUT" && !$0.uri.hasSuffix(".policy") }.count, 0, "\(store.requests())")
        assertExit(try imgfetch(["get", "--cache-dir", cache("a"), "--remote-cache", tier, "-b", "session=s3cret",
                                 imageURL("photo.jpg", "cc=public%2C%20max-age%3D600"), "-o", file("c.jpg").path]), 0)
        // nginx logs a request after answering it.
        waitFor("2 uploads in the store's log: \(store.requests())") {
            store.requests().filter { $0.method == "PUT" && !$0.uri.hasSuffix(".policy") }.count >= 2
        }
        XCTAssertEqual(store.requests().filter { $0.method == "PUT" && !$0.uri.hasSuffix(".policy") }.count, 2,
                       "a public response is shared: its one entry (a JPEG to a .jpg file is the source's bytes), image and meta")
    }

    /// One upload rule for get, prefetch and cache push: a response asked for with a header of the
    /// request's own (an API key, a token: not only Authorization and Cookie) is shared only when it
    /// says public.
    func testResponsesFetchedWithTheirOwnHeadersAreUploadedOnlyWhenPublic() throws {
        let store = try NginxDAVServer()
        let tier = store.url("/t/")
        for header in ["X-Api-Key: k1", "Private-Token: t2", "X-Auth-Token: t3"] {
            assertExit(try imgfetch(["get", "--cache-dir", cache("a"), "--remote-cache", tier, "-H", header,
                                     imageURL("photo.jpg", "cc=max-age%3D600"), "-o", file("a.jpg").path]), 0)
        }
        let list = try writeList([imageURL("small.webp", "cc=max-age%3D600") + " header=\"X-Api-Key: k4\""])
        assertExit(try imgfetch(["prefetch", "--cache-dir", cache("a"), "--remote-cache", tier, list.path]), 0)
        // The origin's robots.txt answer (fetched without the line's headers) is shared; its images are not.
        XCTAssertEqual(store.requests().filter { $0.method == "PUT" && !$0.uri.hasSuffix(".policy") }.count, 0, "\(store.requests())")

        assertExit(try imgfetch(["get", "--cache-dir", cache("a"), "--remote-cache", tier, "-H", "X-Api-Key: k1",
                                 imageURL("photo.jpg", "cc=public%2C%20max-age%3D600"), "-o", file("b.jpg").path]), 0)
        // nginx logs a request after answering it.
        waitFor("2 uploads in the store's log: \(store.requests())") {
            store.requests().filter { $0.method == "PUT" && !$0.uri.hasSuffix(".policy") }.count >= 2
        }
        XCTAssertEqual(store.requests().filter { $0.method == "PUT" && !$0.uri.hasSuffix(".policy") }.count, 2,
                       "a public response is shared: its one entry (a JPEG to a .jpg file is its own bytes), image and meta")

        // cache push of the same cache shares exactly the same entries.
        let push = try imgfetch(["cache", "push", "--cache-dir", cache("a"), "--remote-cache", store.url("/pushed/")])
        assertExit(push, 0)
        XCTAssertTrue(push.stderr.contains("pushed 1,"), push.stderr)
    }

    func testReadModeNeverUploads() throws {
        let store = try NginxDAVServer()
        let r = try imgfetch(["get", "--cache-dir", cache("a"), "--remote-cache", store.url("/t/"), "--remote-cache-mode", "read",
                              imageURL("photo.jpg", "cc=max-age%3D600"), "-o", file("a.jpg").path])
        assertExit(r, 0)
        // The lookup of both spellings of the output (the source's, then `-f jpeg`): each its
        // metadata and (the output format being known) the image beside it. No PUT.
        let requests = store.requests()
        XCTAssertEqual(Set(requests.map(\.method)), ["GET"], "\(requests)")
        XCTAssertEqual(requests.filter { $0.uri.hasSuffix(".meta") && $0.status == 404 }.count, 2, "\(requests)")
        XCTAssertLessThanOrEqual(requests.count, 4, "\(requests)")
    }
}
