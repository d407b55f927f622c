import Foundation
import XCTest

/// Several workers (separate processes, each with its own local cache, as separate machines) on one
/// remote tier (nginx with WebDAV PUT), as `make scale-demo` runs them.
final class RemoteTierWorkerTests: E2ETestCase {
    private func cache(_ name: String) -> String { work.appendingPathComponent(name).path }

    /// `count` distinct, shareable images.
    private func urls(_ count: Int, tag: String) -> [String] {
        (0..<count).map { imageURL($0 % 2 == 0 ? "photo.jpg" : "portrait.jpg", "v=\(tag)\($0)&cc=max-age%3D600") }
    }

    /// Runs every argument list at once, one process each; the results in the same order.
    private func runAtOnce(_ runs: [[String]], timeout: TimeInterval = 90) -> [RunResult?] {
        let home = self.home!, work = self.work!
        let slots = ResultSlots(count: runs.count)
        DispatchQueue.concurrentPerform(iterations: runs.count) { i in
            slots.set(i, try? Imgfetch.run(runs[i], home: home, currentDirectory: work, timeout: timeout))
        }
        return (0..<runs.count).map { slots.get($0) }
    }

    /// A worker with an empty cache gets every entry of `list` from the tier, verified, with no
    /// request to the origin.
    private func assertEveryImageIsARemoteHit(_ list: URL, count: Int, tier: String, cacheName: String,
                                              file: StaticString = #filePath, line: UInt = #line) throws {
        let origin = try server.totalRequests()
        let r = try imgfetch(["prefetch", "--cache-dir", cache(cacheName), "-s", "64", "--json", "--remote-cache", tier, list.path],
                             timeout: 60)
        assertExit(r, 0, file: file, line: line)
        XCTAssertEqual(try server.totalRequests(), origin, "no request reached the origin", file: file, line: line)
        let records = r.json.filter { $0["summary"] == nil }
        XCTAssertEqual(records.count, count, "\(r)", file: file, line: line)
        XCTAssertTrue(records.allSatisfy { $0.string("cache") == "remote" }, "\(records)", file: file, line: line)
        XCTAssertEqual(r.json.last?.int("remote"), count, "\(r)", file: file, line: line)
        XCTAssertFalse(r.stderr.contains("warning"), r.stderr, file: file, line: line)
        assertExit(try imgfetch(["cache", "verify", "--cache-dir", cache(cacheName)]), 0, file: file, line: line)
    }

    func testTwoWorkersUploadingTheSameKeysAtOnceLeaveAValidTier() throws {
        let store = try NginxDAVServer()
        defer { store.stop() }
        let tier = store.url("/t/")
        let list = try writeList(urls(8, tag: "same"))
        // Mode write: neither worker reads the tier, so both upload every key, at the same time.
        let results = runAtOnce(["a", "b"].map {
            ["prefetch", "--cache-dir", cache($0), "-s", "64", "-j", "4", "--json", "--remote-cache", tier,
             "--remote-cache-mode", "write", list.path]
        })
        for (i, r) in results.enumerated() {
            guard let r else { XCTFail("worker \(i) did not run"); continue }
            assertExit(r, 0)
            XCTAssertEqual(r.json.last?.int("ok"), 8, "worker \(i): \(r)")
            XCTAssertEqual(r.json.last?.int("remote_upload_failures") ?? 0, 0, "worker \(i): \(r)")
        }
        // The images' uploads (each worker also shares the origin's robots.txt answer, `.policy`).
        waitFor("64 uploads in the store's log (nginx logs a request after answering it)") {
            store.requests().filter { $0.method == "PUT" && !$0.uri.hasSuffix(".policy") }.count >= 64
        }
        let puts = store.requests().filter { $0.method == "PUT" && !$0.uri.hasSuffix(".policy") }
        XCTAssertEqual(puts.count, 64, "each worker: 8 images, variant and original, image and meta")
        XCTAssertEqual(Set(puts.map(\.uri)).count, 32, "the same 32 objects, each uploaded twice")
        XCTAssertTrue(puts.allSatisfy { (200..<300).contains($0.status) }, "\(puts.filter { $0.status >= 300 })")
        try assertEveryImageIsARemoteHit(list, count: 8, tier: tier, cacheName: "c")
    }

    /// The demo: 4 workers `prefetch --shard K/4` at once, then a fifth with an empty cache gets the
    /// whole list from the tier.
    func testFourShardWorkersThenAFifthGetsEverythingFromTheTier() throws {
        let store = try NginxDAVServer()
        defer { store.stop() }
        let tier = store.url("/imgfetch/")
        let n = 16
        let list = try writeList(urls(n, tag: "shard"))
        let results = runAtOnce((1...4).map {
            ["prefetch", "--cache-dir", cache("w\($0)"), "-s", "64", "--shard", "\($0)/4", "--json", "--remote-cache", tier, list.path]
        })
        var ok = 0
        for (i, r) in results.enumerated() {
            guard let r else { XCTFail("worker \(i + 1) did not run"); continue }
            assertExit(r, 0)
            ok += r.json.last?.int("ok") ?? 0
            XCTAssertEqual(r.json.last?.int("failed"), 0, "worker \(i + 1): \(r)")
        }
        XCTAssertEqual(ok, n, "the shards partition the list")
        // robots.txt aside (each worker's own cache asks for it, unless the tier has it already).
        let images = try server.requestLog().filter { $0.path != "/robots.txt" }
        XCTAssertEqual(images.count, n, "each image fetched once, by one worker")
        XCTAssertLessThanOrEqual(try server.requestCount("/robots.txt"), 4)
        try assertEveryImageIsARemoteHit(list, count: n, tier: tier, cacheName: "fifth")
    }

    /// `http://user:password@host/...`: never uploaded unless the response is public, and the
    /// password is in no output, no local cache file and no stored object.
    func testACredentialedSourceIsNeverUploadedAndItsPasswordShownNowhere() throws {
        let store = try NginxDAVServer()
        defer { store.stop() }
        let tier = store.url("/t/")
        let password = "pa55-\(UUID().uuidString.prefix(8))"
        func credentialed(_ url: String) -> String { url.replacingOccurrences(of: "http://", with: "http://alice:\(password)@") }
        let plain = credentialed(imageURL("photo.jpg", "cc=max-age%3D600"))
        let runs = [
            try imgfetch(["get", "--cache-dir", cache("a"), "--json", "-v", "--remote-cache", tier, plain, "-o", file("a.jpg").path]),
            try imgfetch(["prefetch", "--cache-dir", cache("b"), "--json", "-s", "64", "--remote-cache", tier,
                          try writeList([plain, credentialed(imageURL("tiny.jpg"))]).path]),
        ]
        for r in runs {
            assertExit(r, 0)
            XCTAssertFalse(r.stdoutText.contains(password), "stdout shows the password:\n\(r.stdoutText)")
            XCTAssertFalse(r.stderr.contains(password), "stderr shows the password:\n\(r.stderr)")
        }
        XCTAssertEqual(try server.requests(imagePath("photo.jpg", "cc=max-age%3D600")).first?.headers["authorization"],
                       "Basic " + Data("alice:\(password)".utf8).base64EncodedString(), "the origin got the credentials")
        // Nothing of the images: only the origin's robots.txt answer (fetched without credentials).
        XCTAssertEqual(store.requests().filter { $0.method == "PUT" && !$0.uri.hasSuffix(".policy") }.map(\.uri), [], "nothing uploaded")
        XCTAssertTrue(regularFiles(under: store.root).allSatisfy { $0.path.hasSuffix(".policy") }, "no image object in the tier")

        // A public response is shared, credentials or not: uploaded, yet the password is in no object.
        let shared = credentialed(imageURL("photo.jpg", "cc=public%2C%20max-age%3D600"))
        let p = try imgfetch(["get", "--cache-dir", cache("a"), "--json", "--remote-cache", tier, shared, "-o", file("p.jpg").path])
        assertExit(p, 0)
        XCTAssertFalse(p.stdoutText.contains(password) || p.stderr.contains(password), "\(p)")
        let objects = regularFiles(under: store.root)
        XCTAssertFalse(objects.isEmpty, "a public response is uploaded")
        for f in objects + regularFiles(under: work) where f.pathExtension != "txt" {
            XCTAssertNil(try Data(contentsOf: f).range(of: Data(password.utf8)), "\(f.path) holds the password")
        }
    }
}
