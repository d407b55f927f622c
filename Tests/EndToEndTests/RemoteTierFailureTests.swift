import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A remote tier that is down, failing, hanging or read-only never fails an image nor changes the
/// exit code: the origin is used and the run says why on stderr (and in `--json` records).
final class RemoteTierFailureTests: E2ETestCase {
    private func cache(_ name: String) -> String { work.appendingPathComponent(name).path }

    private var urls: [String] {
        ["photo.jpg", "portrait.jpg", "tiny.jpg", "grey.jpg"].map { imageURL($0, "cc=max-age%3D600") }
    }

    /// prefetch of `urls` into an empty cache through `tier`: exit 0, every image from the origin
    /// (one request each), a warning on stderr.
    @discardableResult
    private func assertPrefetchUsesTheOrigin(_ tier: [String], cacheName: String, timeout: TimeInterval = 30,
                                             file: StaticString = #filePath, line: UInt = #line) throws -> RunResult {
        let list = try writeList(urls, name: "\(cacheName).txt")
        let origin = try server.totalRequests()
        // --no-robots: the count is of the images' requests.
        let r = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cache(cacheName), "-j", "2", "--json", list.path] + tier,
                             timeout: timeout)
        assertExit(r, 0, file: file, line: line)
        let summary = r.json.last ?? [:]
        XCTAssertEqual(summary.int("ok"), urls.count, "\(r)", file: file, line: line)
        XCTAssertEqual(summary.int("failed"), 0, "\(r)", file: file, line: line)
        XCTAssertEqual(summary.int("remote"), 0, "\(r)", file: file, line: line)
        XCTAssertEqual(try server.totalRequests(), origin + urls.count, "each image from the origin", file: file, line: line)
        XCTAssertTrue(r.stderr.contains("warning"), "a warning on stderr:\n\(r.stderr)", file: file, line: line)
        let verify = try imgfetch(["cache", "verify", "--cache-dir", cache(cacheName)])
        assertExit(verify, 0, file: file, line: line)
        return r
    }

    func testARefusedConnectionUsesTheOrigin() throws {
        let closed = try LocalPorts.free()   // nothing listens there
        let tier = ["--remote-cache", "http://127.0.0.1:\(closed)/t/"]
        let r = try assertPrefetchUsesTheOrigin(tier, cacheName: "p")
        XCTAssertTrue(r.stderr.contains("refused"), r.stderr)
        XCTAssertTrue(r.stderr.contains("not used for the rest of this run"), "the tier is given up:\n\(r.stderr)")

        let g = try imgfetch(["get", "--cache-dir", cache("g"), "--json", urls[0], "-o", file("g.jpg").path] + tier)
        assertExit(g, 0)
        let record = singleRecord(g)
        XCTAssertEqual(record.string("cache"), "miss")
        XCTAssertTrue(((record["warnings"] as? [String]) ?? []).contains { $0.contains("refused") }, "\(record)")
        assertImageFile(file("g.jpg"), .jpeg)
    }

    func testAStoreAnswering500UsesTheOriginAndIsGivenUp() throws {
        let store = try NginxDAVServer(mode: .failing(500))
        defer { store.stop() }
        let r = try assertPrefetchUsesTheOrigin(["--remote-cache", store.url("/t/")], cacheName: "p")
        XCTAssertTrue(r.stderr.contains("500"), r.stderr)
        XCTAssertTrue(r.stderr.contains("not used for the rest of this run"), "the tier is given up:\n\(r.stderr)")
        let requests = store.requests()
        XCTAssertTrue(requests.allSatisfy { $0.status == 500 }, "\(requests)")
        XCTAssertLessThan(requests.count, urls.count * 2, "a failing store is left alone after a few requests: \(requests)")
    }

    /// A store that accepts connections and never answers: each store request is bounded by
    /// `--remote-timeout`, then the origin is used; the upload that follows is bounded the same way.
    func testAHangingStoreTimesOutAndTheOriginIsUsed() throws {
        let store = try NginxDAVServer(mode: .slow)
        defer { store.stop() }
        let r = try imgfetch(["get", "--cache-dir", cache("g"), "--json", "--remote-timeout", "1", urls[0],
                              "-o", file("g.jpg").path, "--remote-cache", store.url("/t/")], timeout: 90)
        assertExit(r, 0)
        assertImageFile(file("g.jpg"), .jpeg)
        let record = singleRecord(r)
        XCTAssertEqual(record.string("cache"), "miss")
        let warnings = (record["warnings"] as? [String]) ?? []
        XCTAssertTrue(warnings.contains { $0.contains("timed out") }, "the lookup timed out: \(record)")
        XCTAssertTrue(warnings.contains { $0.contains("abandoned") || $0.contains("upload") }, "the upload did not finish: \(record)")
        XCTAssertLessThan(r.elapsed, 10, "a 1 s lookup, then at most 1 s of upload: \(r.elapsed) s")
    }

    /// Uploads to a hanging store cost at most `--remote-timeout` (each PUT, and the final wait).
    func testUploadsToAHangingStoreAreAbandonedAfterRemoteTimeout() throws {
        let store = try NginxDAVServer(mode: .slow)
        defer { store.stop() }
        let r = try assertPrefetchUsesTheOrigin(["--remote-cache", store.url("/t/"), "--remote-cache-mode", "write",
                                                 "--remote-timeout", "1"], cacheName: "p")
        XCTAssertLessThan(r.elapsed, 15, "\(r)")
        // Each PUT times out after --remote-timeout too: an upload either fails so or is abandoned
        // by the final wait, whichever comes first; none is left waiting.
        XCTAssertTrue(r.stderr.contains("abandoned") || r.stderr.contains("upload failed"), r.stderr)
        let summary = r.json.last
        XCTAssertGreaterThan((summary?.int("remote_uploads_abandoned") ?? 0) + (summary?.int("remote_upload_failures") ?? 0), 0, "\(r)")
    }

    /// A store that serves reads but refuses every PUT (its directory is read-only for nginx's
    /// workers): each upload fails with a warning, no image fails, the exit code is the one without a tier.
    func testUploadFailuresNeverFailAnImageNorChangeTheExitCode() throws {
        let store = try NginxDAVServer()
        defer { store.stop() }
        let dir = store.root.appendingPathComponent("t")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        chmod(dir.path, 0o555)
        let list = try writeList(urls + [imageURL("no-such-image.jpg")])

        let plain = try imgfetch(["prefetch", "--cache-dir", cache("plain"), "--json", list.path])
        let tiered = try imgfetch(["prefetch", "--cache-dir", cache("tiered"), "--json", list.path, "--remote-cache", store.url("/t/")])
        XCTAssertNotEqual(plain.status, 0, "one URL is missing: \(plain)")
        assertExit(tiered, plain.status)
        let summary = tiered.json.last ?? [:]
        XCTAssertEqual(summary.int("ok"), urls.count, "\(tiered)")
        XCTAssertEqual(summary.int("failed"), 1, "\(tiered)")
        XCTAssertEqual(summary.int("ok"), plain.json.last?.int("ok"))
        XCTAssertGreaterThan(summary.int("remote_upload_failures") ?? 0, 0, "\(tiered)")
        XCTAssertTrue(tiered.stderr.contains("upload failed"), tiered.stderr)
        // nginx logs a request after answering it.
        waitFor("an upload in the store's log: \(store.requests())") {
            store.requests().contains { $0.method == "PUT" }
        }
        let puts = store.requests().filter { $0.method == "PUT" }
        XCTAssertFalse(puts.isEmpty)
        XCTAssertTrue(puts.allSatisfy { $0.status >= 400 }, "\(puts)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "nothing was stored")
        assertExit(try imgfetch(["cache", "verify", "--cache-dir", cache("tiered")]), 0)
    }
}
