import Foundation
import XCTest

/// `make scale-demo` (scripts/scale-demo.sh) with the built binary: GNU parallel runs 4 `--shard K/4`
/// workers on one nginx tier, then a fifth worker with an empty cache gets every image from it.
final class ScaleDemoTests: E2ETestCase {
    func testTheScaleDemoServesTheFifthWorkerFromTheTierAlone() throws {
        let n = 12
        let r = try repositoryScript("scale-demo.sh", [String(n)])
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertFalse(r.timedOut, "\(r)")
        let out = r.stdoutText
        XCTAssertTrue(out.contains("entries in the remote tier: \(2 * n)"), "variant and original of each image:\n\(out)")
        XCTAssertTrue(out.contains("fifth worker: \(n) of \(n) images from the remote tier; origin requests it made: 0"), out)
        XCTAssertTrue(out.contains("scale-demo: ok:"), out)
        XCTAssertFalse(r.stderr.contains("warning"), r.stderr)
        let left = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasPrefix("imgfetch-scale-demo") }
        XCTAssertEqual(left, [], "the demo removes its directory")
    }
}
