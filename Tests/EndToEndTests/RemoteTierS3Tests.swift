import Foundation
import ImageFetch
import XCTest

/// The remote cache tier on s3:// through the built binary: moto's S3 server with SigV4
/// authentication enforced (MotoS3Server), credentials from the AWS_* variables only.
final class RemoteTierS3Tests: E2ETestCase {
    private func cache(_ name: String) -> String { work.appendingPathComponent(name).path }

    /// What the store holds under `prefix`, listed with the right key (every page).
    private func objects(_ moto: MotoS3Server, prefix: String = "team") async throws -> [String] {
        let settings = RemoteStoreSettings(url: "s3://\(moto.bucket)/\(prefix)", s3Endpoint: moto.endpoint,
                                           accessKeyID: moto.accessKeyID, secretAccessKey: moto.secretAccessKey,
                                           region: "us-east-1")
        let store = try RemoteStores.make(settings)
        var names: [String] = []
        var token: String?
        repeat {
            let page = try await store.list(continuation: token)
            names += page.names
            token = page.continuation
        } while token != nil
        return names.sorted()
    }

    /// Asserts `secret` is in no output of `r` and in no file under `dir`.
    private func assertNowhere(_ secret: String, _ r: RunResult, cacheDir dir: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(r.stdoutText.contains(secret), "stdout shows the secret:\n\(r.stdoutText)", file: file, line: line)
        XCTAssertFalse(r.stderr.contains(secret), "stderr shows the secret:\n\(r.stderr)", file: file, line: line)
        for f in regularFiles(under: URL(fileURLWithPath: dir)) {
            let bytes = (try? Data(contentsOf: f)) ?? Data()
            XCTAssertNil(bytes.range(of: Data(secret.utf8)), "\(f.path) holds the secret", file: file, line: line)
        }
    }

    func testAWorkerFillsTheBucketAndAnotherGetsRemoteHitsWithoutTheOrigin() async throws {
        let moto = try MotoS3Server()
        defer { moto.stop() }
        let tier = ["--remote-cache", "s3://\(moto.bucket)/team/", "--s3-endpoint", moto.endpoint]
        let urls = [imageURL("photo.jpg", "cc=max-age%3D600"), imageURL("portrait.jpg", "cc=max-age%3D600")]
        let list = try writeList(urls)

        let a = try imgfetch(["prefetch", "--cache-dir", cache("a"), "-s", "64", "--json", list.path] + tier, env: moto.environment)
        assertExit(a, 0)
        XCTAssertFalse(a.stderr.contains("warning"), a.stderr)
        XCTAssertEqual(a.json.last?.int("remote"), 0, "\(a)")
        assertNowhere(moto.secretAccessKey, a, cacheDir: cache("a"))
        // Besides the images, the origin's robots.txt answer (one `.policy` object) that the next worker takes.
        let all = try await objects(moto)
        XCTAssertEqual(all.filter { $0.hasSuffix(".policy") }.count, 1, "\(all)")
        let stored = all.filter { !$0.hasSuffix(".policy") }
        XCTAssertEqual(stored.count, 8, "variant and original, each image and meta: \(stored)")
        XCTAssertEqual(stored.filter { $0.hasSuffix(".meta") }.count, 4, "\(stored)")
        let origin = try server.totalRequests()

        let b = try imgfetch(["prefetch", "--cache-dir", cache("b"), "-s", "64", "--json", list.path] + tier, env: moto.environment)
        assertExit(b, 0)
        XCTAssertEqual(try server.totalRequests(), origin, "no request reached the origin")
        let records = b.json.filter { $0["summary"] == nil }
        XCTAssertEqual(records.map { $0.string("cache") }, ["remote", "remote"], "\(b)")
        XCTAssertEqual(b.json.last?.int("remote"), 2, "\(b)")
        XCTAssertTrue(b.stderr.contains("2 ok (2 cached, 2 remote, 0 low-data)"), b.stderr)
        assertNowhere(moto.secretAccessKey, b, cacheDir: cache("b"))

        // The bytes a remote hit delivers are the bytes the filling worker delivered. (`get -o x.jpg`
        // of a JPEG's thumbnail is the entry prefetch made: one output, one entry, nothing uploaded.)
        let local = try imgfetch(["get", "--cache-dir", cache("a"), "-s", "64", "--json", urls[1], "-o", file("a.jpg").path] + tier,
                                 env: moto.environment)
        assertExit(local, 0)
        XCTAssertEqual(singleRecord(local).string("cache"), "hit")
        let filled = try await objects(moto).filter { !$0.hasSuffix(".policy") }
        XCTAssertEqual(filled.count, 8, "\(filled)")
        let remote = try imgfetch(["get", "--cache-dir", cache("c"), "-s", "64", "--json", urls[1], "-o", file("c.jpg").path] + tier,
                                  env: moto.environment)
        assertExit(remote, 0)
        XCTAssertEqual(singleRecord(remote).string("cache"), "remote")
        XCTAssertEqual(try server.totalRequests(), origin)
        assertImageFile(file("c.jpg"), .jpeg)
        XCTAssertEqual(try Data(contentsOf: file("c.jpg")), try Data(contentsOf: file("a.jpg")))
        let after = try await objects(moto).filter { !$0.hasSuffix(".policy") }
        XCTAssertEqual(after, filled, "a hit uploads nothing")
    }

    func testAWrongSecretFallsBackToTheOriginWithAWarningAndIsShownNowhere() async throws {
        let moto = try MotoS3Server()
        defer { moto.stop() }
        let tier = ["--remote-cache", "s3://\(moto.bucket)/team/", "--s3-endpoint", moto.endpoint]
        let urls = [imageURL("photo.jpg", "cc=max-age%3D600"), imageURL("tiny.jpg", "cc=max-age%3D600")]
        // The bucket holds the first image (filled with the right key): a wrong key must not read it.
        assertExit(try imgfetch(["get", "--cache-dir", cache("fill"), urls[0], "-o", file("fill.jpg").path] + tier,
                                env: moto.environment), 0)
        let before = try await objects(moto)
        XCTAssertFalse(before.isEmpty)
        XCTAssertEqual(before.filter { $0.hasSuffix(".meta") }.count * 2, before.count, "\(before)")

        let wrong = "wrongSecret+\(UUID().uuidString.prefix(12))/Zq"
        var env = moto.environment
        env["AWS_SECRET_ACCESS_KEY"] = wrong
        let origin = try server.totalRequests()
        let g = try imgfetch(["get", "--cache-dir", cache("w"), "--json", urls[0], "-o", file("w.jpg").path] + tier, env: env)
        assertExit(g, 0)
        XCTAssertEqual(try server.totalRequests(), origin + 1, "the image came from the origin")
        XCTAssertEqual(try Data(contentsOf: file("w.jpg")), try Data(contentsOf: file("fill.jpg")))
        let record = singleRecord(g)
        XCTAssertEqual(record.string("cache"), "miss")
        let warnings = (record["warnings"] as? [String]) ?? []
        XCTAssertTrue(warnings.contains { $0.contains("403") || $0.contains("SignatureDoesNotMatch") }, "\(record)")
        assertNowhere(wrong, g, cacheDir: cache("w"))
        assertNowhere(moto.secretAccessKey, g, cacheDir: cache("w"))

        let p = try imgfetch(["prefetch", "--cache-dir", cache("p"), "--json", try writeList(urls).path] + tier, env: env)
        assertExit(p, 0)
        let summary = p.json.last ?? [:]
        XCTAssertEqual(summary.int("ok"), 2, "\(p)")
        XCTAssertEqual(summary.int("remote"), 0, "\(p)")
        XCTAssertTrue(p.stderr.contains("warning"), "the store's refusal is a warning:\n\(p.stderr)")
        assertNowhere(wrong, p, cacheDir: cache("p"))
        let after = try await objects(moto)
        XCTAssertEqual(after, before, "a wrong key stored nothing")
    }
}
