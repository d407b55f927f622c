import Foundation
import XCTest

/// `--max-output-bytes`: the highest quality not above -q that fits, part of the key; over budget,
/// the smallest output with a warning and `"over_budget": true`; `"quality"` in every record.
final class OutputBudgetTests: E2ETestCase {
    func testA20KBudgetOnFivePhotosAt640Pixels() throws {
        try TestPhotos.make(in: work, wallpapers: ["pixels-d", "symbolic-l"])
        var used: [Int] = []
        for name in ["photo", "portrait", "detail", "pixels-d", "symbolic-l"] {
            let r = try get([file("\(name).jpg").path, "-s", "640x640", "-f", "jpeg", "--max-output-bytes", "20K",
                             "--json", "-o", file("\(name)-out.jpg").path])
            assertExit(r, 0)
            let record = singleRecord(r)
            let bytes = try Data(contentsOf: file("\(name)-out.jpg")).count
            XCTAssertLessThanOrEqual(bytes, 20_480, "\(name): \(record)")
            XCTAssertNil(record["over_budget"], "\(record)")
            let quality = record.int("quality") ?? 0
            XCTAssertTrue((20...75).contains(quality), "\(record)")
            used.append(bytes)
        }
        XCTAssertGreaterThanOrEqual(used.filter { $0 > 20_480 * 6 / 10 }.count, 3, "most use more than 60% of the budget: \(used)")
    }

    func testOverBudgetKeepsTheSmallestWithAWarningAndTheBudgetIsInTheKey() throws {
        let photo = E2EPaths.fixturesDir.appendingPathComponent("photo.jpg").path
        let over = try get([photo, "-s", "640", "-f", "webp", "--max-output-bytes", "2K", "--json", "-o", file("a.webp").path])
        assertExit(over, 0)
        let record = singleRecord(over)
        XCTAssertEqual(record["over_budget"] as? Bool, true, "\(record)")
        XCTAssertEqual(record.int("quality"), 20, "\(record)")
        XCTAssertTrue(over.stderr.contains("--max-output-bytes"), over.stderr)
        let plain = try get([photo, "-s", "640", "-f", "webp", "--json", "-o", file("b.webp").path])
        XCTAssertNotEqual(singleRecord(plain).string("key"), record.string("key"), "the budget is part of the key")
        XCTAssertEqual(singleRecord(plain).int("quality"), 75, "the quality is in every record of an encoded output")
        XCTAssertGreaterThan(try Data(contentsOf: file("b.webp")).count, try Data(contentsOf: file("a.webp")).count)
        let hit = try get([photo, "-s", "640", "-f", "webp", "--max-output-bytes", "2K", "--json", "-o", file("c.webp").path])
        XCTAssertEqual(singleRecord(hit).string("cache"), "hit")
        XCTAssertEqual(singleRecord(hit).int("quality"), 20, "a hit says the quality it was made at")
        let bad = try get([photo, "-s", "640", "--max-output-bytes", "lots", "-o", file("d.jpg").path])
        assertExit(bad, 2)
    }
}
