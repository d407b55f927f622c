import Foundation
import XCTest

/// Processes sharing one cache at its size limit (issue 41): four prefetches of the same list, so
/// that one evicts entries another is storing again, leave a cache that `cache verify` finds valid
/// (no metadata without its image) and within its limit. A few rounds here; 20 were run by hand.
final class CacheSharedLimitTests: E2ETestCase {
    static let rounds = 3
    static let processes = 4

    func testFourPrefetchesAtALimitLeaveAValidCacheWithinIt() throws {
        let home = self.home!, work = self.work!
        for round in 0..<Self.rounds {
            let dir = root.appendingPathComponent("shared-\(round)").path
            // Originals of 336 KB and their thumbnails under 4 MB: about ten originals fit, so each
            // is evicted soon after it is stored, while the other processes store it again.
            let list = try writeList((0..<60).map { imageURL("photo.jpg", "r=\(round)&i=\($0)") }, name: "list-\(round).txt")
            let args = ["prefetch", "--cache-dir", dir, "--cache-size-limit", "4M", "-s", "64", "--no-progress", list.path]
            let results = ResultSlots(count: Self.processes)
            DispatchQueue.concurrentPerform(iterations: Self.processes) { i in
                results.set(i, try? Imgfetch.run(args, home: home, currentDirectory: work, timeout: 120))
            }
            for i in 0..<Self.processes {
                guard let r = results.get(i) else { XCTFail("round \(round): run \(i) did not start"); continue }
                assertExit(r, 0)
            }
            let verify = try imgfetch(["cache", "verify", "--cache-dir", dir])
            assertExit(verify, 0)
            XCTAssertFalse(verify.stdoutText.contains("missing") || verify.stderr.contains("missing"), "round \(round): \(verify)")
            let stats = try imgfetch(["cache", "stats", "--json", "--cache-dir", dir])
            assertExit(stats, 0)
            let s = singleRecord(stats)
            let footprint = (s.int("bytes") ?? .max / 2) + 512 * (s.int("entries") ?? 0)
            XCTAssertLessThanOrEqual(footprint, 4 << 20, "round \(round): within the limit: \(s)")
            XCTAssertEqual(s.int("variants"), 60, "round \(round): every thumbnail asked for is kept: \(s)")
        }
    }
}
