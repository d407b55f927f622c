import Foundation
import XCTest

/// The cache commands as a script runs them: exit codes, JSON that jq reads, stdout only the data.
final class CacheScriptTests: E2ETestCase {
    private func cache(_ args: [String], stdin: Data? = nil) throws -> RunResult {
        try imgfetch(["cache"] + args + ["--cache-dir", cacheDir.path], stdin: stdin)
    }

    /// Every stdout line parses as one JSON object.
    private func records(_ r: RunResult, file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
        let lines = r.stdoutText.split(separator: "\n")
        let parsed = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(parsed.count, lines.count, "stdout holds only JSON objects:\n\(r)", file: file, line: line)
        return parsed
    }

    /// Two cached sources (photo.jpg and tiny.jpg, as they are): their keys.
    private func twoEntries() throws -> (photo: String, tiny: String) {
        var keys: [String] = []
        for name in ["photo.jpg", "tiny.jpg"] {
            let r = try get(["--json", imageURL(name), "-o", file(name).path])
            assertExit(r, 0)
            keys.append(singleRecord(r).string("key") ?? "")
        }
        return (keys[0], keys[1])
    }

    func testVerifyJSONHasOneRecordPerProblemThenASummaryAndKeepsItsExitCodes() throws {
        let (photo, _) = try twoEntries()
        let clean = try cache(["verify", "--json"])
        assertExit(clean, 0)
        let summary = records(clean)
        XCTAssertEqual(summary.count, 1, "\(clean)")
        XCTAssertEqual(summary.first?["summary"] as? Bool, true)
        XCTAssertEqual(summary.first?.int("checked"), 2)
        XCTAssertEqual(summary.first?.int("problems"), 0)

        // A damaged image: one problem record, exit 1.
        let image = cacheDir.appendingPathComponent("v1/\(photo.prefix(2))/\(photo).jpg")
        let handle = try FileHandle(forWritingTo: image)
        handle.seekToEndOfFile()
        handle.write(Data("junk".utf8))
        handle.closeFile()
        let bad = try cache(["verify", "--json"])
        assertExit(bad, 1)
        let found = records(bad)
        XCTAssertEqual(found.count, 2, "\(bad)")
        XCTAssertEqual(found.first?.string("key"), photo)
        XCTAssertEqual(found.first?.string("source"), imageURL("photo.jpg"))
        XCTAssertNotNil(found.first?.string("problem"), "\(bad)")
        XCTAssertEqual(found.first?["repaired"] as? Bool, false)
        XCTAssertEqual(found.last?["summary"] as? Bool, true)
        XCTAssertEqual(found.last?.int("problems"), 1)
        XCTAssertEqual(found.last?.int("repaired"), 0)

        let repaired = try cache(["verify", "--json", "--repair"])
        assertExit(repaired, 0)
        let fixed = records(repaired)
        XCTAssertEqual(fixed.first?["repaired"] as? Bool, true, "\(repaired)")
        XCTAssertEqual(fixed.last?.int("repaired"), 1, "\(repaired)")
        assertExit(try cache(["verify", "--json"]), 0)
    }

    func testRmDashTakesKeysPrefixesAndSourcesFromStandardInput() throws {
        let (photo, tiny) = try twoEntries()
        let third = try get(["--json", imageURL("grey.jpg"), "-o", file("grey.jpg").path])
        assertExit(third, 0)
        let input = "# the photo by key prefix, tiny by source\n\(photo.prefix(10))\n\n\(imageURL("tiny.jpg"))\n"
        let r = try cache(["rm", "-"], stdin: Data(input.utf8))
        assertExit(r, 0)
        let left = records(try cache(["ls", "--json"])).compactMap { $0.string("key") }
        XCTAssertFalse(left.contains(photo), "\(r)")
        XCTAssertFalse(left.contains(tiny), "\(r)")
        XCTAssertEqual(left.count, 1, "grey.jpg stays: \(left)")
        // A line not in the cache: exit 1, named on stderr.
        let missing = try cache(["rm", "-"], stdin: Data("\(imageURL("tiny.jpg"))\n".utf8))
        assertExit(missing, 1)
        XCTAssertTrue(missing.stderr.contains("not in the cache"), "\(missing)")
        XCTAssertFalse(missing.stderr.contains("-: not in the cache"), "\(missing)")
    }
}
