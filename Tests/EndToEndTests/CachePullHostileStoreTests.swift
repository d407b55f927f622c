import Foundation
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
}
