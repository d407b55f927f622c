import XCTest
@testable import ImageFetch

/// A shard's digest (`RequestPlan.shardDigestLines`): every stored property changes it but those
/// named in `notInShardDigest`, which are all outside the cache key too.
final class ShardDigestTests: XCTestCase {
    func testEveryPropertyButTheNamedOnesChangesTheShardDigest() {
        let base = ImageRequest(source: .http("https://example.com/a.jpg"))
        let plain = RequestPlan.shardDigestLines(of: base)
        for (path, change) in RequestKeysTests.changes.sorted(by: { $0.key < $1.key }) {
            var request = base
            change(&request)
            let lines = RequestPlan.shardDigestLines(of: request)
            if RequestPlan.notInShardDigest.contains(path) {
                XCTAssertEqual(lines, plain, "\(path) is named as not in the shard digest, yet changes it")
            } else {
                XCTAssertNotEqual(lines, plain, "\(path) changes what a line gives: it must change the shard digest")
            }
        }
        XCTAssertTrue(RequestPlan.notInShardDigest.isSubset(of: RequestPlan.notInCacheKey.union(["source"])),
                      "what changes the cache key changes the shard digest")
    }

    func testCredentialsAreDigestedAlikeEverywhereAndNeverWrittenOut() {
        var a = ImageRequest(source: .http("https://example.com/a.jpg"))
        a.network.user = "ann:secret"
        var b = a
        b.network.user = "ann:other"
        XCTAssertEqual(RequestPlan.shardDigestLines(of: a), RequestPlan.shardDigestLines(of: a))
        XCTAssertNotEqual(RequestPlan.shardDigestLines(of: a), RequestPlan.shardDigestLines(of: b))
        XCTAssertFalse(RequestPlan.shardDigestLines(of: a).joined().contains("secret"))
    }
}
