import Foundation
import XCTest

/// Offline after a metered run: `--offline` and `--cache-only` serve a request's low-data entry when
/// its full one is not cached (with or without `--low-data`), the full one when it is; exit 0.
final class OfflineLowDataTests: E2ETestCase {
    func testOfflineServesTheLowDataEntryThenTheFullOneOnceCached() throws {
        let original = imageURL("photo.jpg"), small = imageURL("tiny.jpg")
        let shape = ["-s", "50", "--low-data-source", small]
        assertExit(try get([original] + shape + ["--low-data", "-o", file("a.jpg").path]), 0)
        let before = try server.totalRequests()
        for policy in ["--offline", "--cache-only"] {
            for lowData in [[], ["--low-data"]] {
                let r = try get([original] + shape + lowData + [policy, "--json", "-o", file("b.jpg").path])
                assertExit(r, 0)
                let record = singleRecord(r)
                XCTAssertEqual(record["low_data"] as? Bool, true, "\(policy) \(lowData): \(record)")
                XCTAssertEqual(record.string("source"), small, "\(record)")
                XCTAssertEqual(record.string("original_source"), original, "\(record)")
            }
        }
        XCTAssertEqual(try server.totalRequests(), before, "offline: no request")
        let missing = try get([imageURL("photo.jpg", "v=other"), "-s", "50", "--offline", "--json", "-o", file("c.jpg").path])
        assertExit(missing, 3)
        XCTAssertEqual(errorCode(singleRecord(missing)), "not_cached")

        assertExit(try get([original] + shape + ["-o", file("d.jpg").path]), 0)
        let full = try get([original] + shape + ["--offline", "--json", "-o", file("e.jpg").path])
        assertExit(full, 0)
        XCTAssertEqual(singleRecord(full)["low_data"] as? Bool, false, "the full entry once it is cached")
        XCTAssertEqual(singleRecord(full).string("source"), original)
    }
}
