import Foundation
import ImageFetch
import XCTest

/// `cache pull` against stores that misbehave (Tests/Support/hostile_store.py): a listing that
/// never ends, objects far larger than they should be. Each run must end, say why, and exit 1.
final class CachePullHostileStoreTests: E2ETestCase {
    /// S3 credentials for a store that does not check them.
    private let s3Environment = ["AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "not-checked-by-this-store",
                                 "AWS_REGION": "us-east-1"]

    private func pullS3(_ store: HostileStore) throws -> RunResult {
        try imgfetch(["cache", "pull", "--cache-dir", cacheDir.path, "--remote-cache", "s3://bkt/p",
                      "--s3-endpoint", store.endpoint], env: s3Environment, timeout: 20)
    }

    private func listingRequests(_ store: HostileStore) -> Int {
        store.requests().filter { $0.contains("list-type=2") }.count
    }

    func testAListingThatAlwaysSaysMoreWithFreshTokensAndNoKeysEnds() throws {
        let store = try HostileStore("s3-fresh")
        defer { store.stop() }
        let r = try pullS3(store)
        assertExit(r, 1)
        XCTAssertTrue(r.stderr.contains("listing stopped") && r.stderr.contains("nothing new"), r.stderr)
        XCTAssertLessThanOrEqual(listingRequests(store), 2, "\(store.requests().count) requests")
    }

    func testAListingWhoseTokensAlternateEnds() throws {
        // Each page brings one new key: only the tokens tell the loop.
        let store = try HostileStore("s3-alternate")
        defer { store.stop() }
        let r = try pullS3(store)
        assertExit(r, 1)
        XCTAssertTrue(r.stderr.contains("listing stopped"), r.stderr)
        XCTAssertLessThanOrEqual(listingRequests(store), 3, "\(store.requests())")
    }

    func testAListingThatRepeatsTheSameKeysEnds() throws {
        let keys = ["ab", "cd", "ef"].map { String(repeating: $0, count: 32) }
        let store = try HostileStore("s3-repeat") { dir in
            try keys.map { "p/\($0).meta" }.joined(separator: "\n").write(to: dir.appendingPathComponent("keys"), atomically: true, encoding: .utf8)
        }
        defer { store.stop() }
        let r = try pullS3(store)
        assertExit(r, 1)
        XCTAssertTrue(r.stderr.contains("listing stopped") && r.stderr.contains("nothing new"), r.stderr)
        XCTAssertLessThanOrEqual(listingRequests(store), 2, "\(store.requests())")
        // The three keys were tried once each (their metadata is not there).
        XCTAssertEqual(store.requests().filter { $0.contains(".meta") }.count, 3, "\(store.requests())")
    }

    // MARK: - objects larger than they should be

    /// `imgfetch ARGS` under /usr/bin/time: the result and the peak RSS in KiB.
    private func measured(_ args: [String], timeout: TimeInterval = 120) throws -> (RunResult, Int?) {
        let rss = root.appendingPathComponent("rss-\(UUID().uuidString)")
        let binary = try XCTUnwrap(E2EPaths.binary)
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/time"), ["-f", "%M", "-o", rss.path, binary.path] + args,
                                  environment: Imgfetch.baseEnvironment(home: home), currentDirectory: work, timeout: timeout)
        XCTAssertFalse(r.timedOut, "\(r)")
        let text = (try? String(contentsOf: rss, encoding: .utf8)) ?? ""
        return (r, text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
    }

    /// A real entry's metadata made to describe `size` zero bytes under `key`.
    private func plantedMeta(_ template: String, key: String, size: Int, checksum: String) -> String {
        template.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if line.hasPrefix("key\t") { return "key\t\(key)" }
            if line.hasPrefix("bytes\t") { return "bytes\t\(size)" }
            if line.hasPrefix("checksum\t") { return "checksum\t\(checksum)" }
            if line.hasPrefix("format\t") { return "format\tjpeg" }
            return String(line)
        }.joined(separator: "\n")
    }

    func testPullCapsEntriesByMaxBytesAndBoundsTheBytesInFlight() throws {
        assertExit(try get([imageURL("photo.jpg"), "-o", file("a.jpg").path]), 0)
        let metaFile = try XCTUnwrap(regularFiles(under: cacheDir).first { $0.pathExtension == "meta" })
        let template = try String(contentsOf: metaFile, encoding: .utf8)
        let size = 90_000_000   // under the default --max-bytes (100M)
        let checksum = Checksum.string([UInt8](repeating: 0, count: size))
        let small = (1...6).map { String(repeating: String($0), count: 64) }
        let huge = String(repeating: "f", count: 64)
        let store = try HostileStore("zeros") { dir in
            for key in small {
                try self.plantedMeta(template, key: key, size: size, checksum: checksum)
                    .write(to: dir.appendingPathComponent("\(key).meta"), atomically: true, encoding: .utf8)
            }
            // A .meta that claims 1.5 GB: its image would be a stream of that many zeros.
            try self.plantedMeta(template, key: huge, size: 1_500_000_000, checksum: checksum)
                .write(to: dir.appendingPathComponent("\(huge).meta"), atomically: true, encoding: .utf8)
        }
        defer { store.stop() }

        let pulled = root.appendingPathComponent("pulled").path
        let (r, peak) = try measured(["cache", "pull", "--cache-dir", pulled, "--remote-cache", store.url("/c/")])
        assertExit(r, 1)
        XCTAssertTrue(r.stderr.contains("pulled 6, skipped 0 (already valid here), failed 1"), r.stderr)
        XCTAssertTrue(r.stderr.contains("larger than the limit of 104857600 bytes"), r.stderr)
        XCTAssertFalse(store.requests().contains { $0.contains("\(huge).jpg") }, "the huge image was never asked for")
        let kib = try XCTUnwrap(peak, "peak RSS of the pull")
        print("cache pull of six 90 MB entries: peak RSS \(kib) KiB")
        XCTAssertLessThan(kib, 600 * 1024, "peak RSS \(kib) KiB for six 90 MB entries")

        // A lower cap refuses them all before any image is asked for.
        let before = store.requests().filter { $0.contains(".jpg") }.count
        let capped = try imgfetch(["cache", "pull", "--cache-dir", root.appendingPathComponent("capped").path,
                                   "--remote-cache", store.url("/c/"), "--max-bytes", "50M"], timeout: 60)
        assertExit(capped, 1)
        XCTAssertTrue(capped.stderr.contains("pulled 0, skipped 0 (already valid here), failed 7"), capped.stderr)
        XCTAssertEqual(store.requests().filter { $0.contains(".jpg") }.count, before)
        assertExit(try imgfetch(["cache", "pull", "--cache-dir", pulled, "--remote-cache", store.url("/c/"), "--max-bytes", "0"]), 2)
    }

    // MARK: - a listing larger than any page

    /// nginx's JSON autoindex is one page whatever the directory holds: a listing of over 64 MiB
    /// (about 230,000 entries) is read as it arrives, in bounded memory, and every entry pulled.
    func testAListingOfOverSixtyFourMiBIsStreamed() throws {
        for name in ["photo.jpg", "small.webp", "alpha.png"] {
            assertExit(try get([imageURL(name), "-s", "64x64", "-o", file("out-\(name)").path]), 0)
        }
        let nginx = try NginxDAVServer()
        defer { nginx.stop() }
        assertExit(try imgfetch(["cache", "push", "--cache-dir", cacheDir.path, "--remote-cache", nginx.url("/c/")]), 0)
        let pushed = nginx.root.appendingPathComponent("c")
        let store = try HostileStore("big-listing") { dir in
            for name in try FileManager.default.contentsOfDirectory(atPath: pushed.path) {
                try FileManager.default.copyItem(at: pushed.appendingPathComponent(name), to: dir.appendingPathComponent(name))
            }
            // Entries that are not cache objects, about 290 bytes each: a listing of about 75 MB.
            try "260000".write(to: dir.appendingPathComponent("filler"), atomically: true, encoding: .utf8)
        }
        defer { store.stop() }
        let (r, peak) = try measured(["cache", "pull", "--cache-dir", root.appendingPathComponent("pulled").path,
                                      "--remote-cache", store.url("/c/")])
        assertExit(r, 0)
        XCTAssertTrue(r.stderr.contains("pulled 6, skipped 0 (already valid here), failed 0"), r.stderr)
        let kib = try XCTUnwrap(peak, "peak RSS of the pull")
        print("cache pull of a 75 MB listing: peak RSS \(kib) KiB")
        XCTAssertLessThan(kib, 64 * 1024, "peak RSS \(kib) KiB: the listing was held whole")
    }
}
