import Foundation
import XCTest

/// `cache prune --dry-run` (what would go, with sizes, nothing removed; text and `--json`) and what
/// a bare `cache prune` says it checked.
final class CachePruneDryRunTests: E2ETestCase {
    private func cache(_ args: [String]) throws -> RunResult {
        try imgfetch(["cache"] + args + ["--cache-dir", cacheDir.path])
    }

    private func listed() throws -> [[String: Any]] {
        let r = try cache(["ls", "--json"])
        assertExit(r, 0)
        return r.json
    }

    /// Three entries, one of them (tiny.jpg) expired: its key.
    private func populate() throws -> String {
        let tiny = try get(["--json", imageURL("tiny.jpg", "cc=max-age=1"), "-o", file("t.jpg").path])
        assertExit(tiny, 0)
        assertExit(try get([imageURL("photo.jpg"), "-o", file("p.jpg").path]), 0)
        assertExit(try get([imageURL("small.webp"), "-o", file("s.webp").path]), 0)
        Thread.sleep(forTimeInterval: 1.2)
        return try XCTUnwrap(singleRecord(tiny).string("key"))
    }

    /// A temporary file an interrupted write left two hours ago (a broken file).
    private func leaveBrokenFile(bytes: Int) throws -> URL {
        let tmp = cacheDir.appendingPathComponent("v1/tmp", isDirectory: true)
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        let url = tmp.appendingPathComponent(".tmp-123-456")
        try Data(repeating: 7, count: bytes).write(to: url)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: url.path)
        return url
    }

    func testDryRunSaysWhatWouldGoAndRemovesNothing() throws {
        let tiny = try populate()
        let broken = try leaveBrokenFile(bytes: 3000)
        let before = try listed()
        let bytes = try XCTUnwrap(before.first { $0.string("key") == tiny }?.int("bytes"))

        let text = try cache(["prune", "--dry-run"])
        assertExit(text, 0)
        let rows = text.stdoutText.split(separator: "\n")
        XCTAssertEqual(rows.count, 1, "one row per entry that would go, nothing else on stdout:\n\(text)")
        XCTAssertTrue(rows.first?.hasPrefix(String(tiny.prefix(12))) == true, "\(text)")
        XCTAssertTrue(rows.first?.contains("expired") == true, "\(text)")
        XCTAssertTrue(text.stderr.contains("would remove 1 entry") && text.stderr.contains("1 broken file") && text.stderr.contains("nothing removed"), "\(text)")

        let json = try cache(["prune", "--dry-run", "--json"])
        assertExit(json, 0)
        let records = json.json
        XCTAssertEqual(records.count, json.stdoutText.split(separator: "\n").count, "only JSON on stdout:\n\(json)")
        XCTAssertEqual(records.count, 2, "\(json)")
        XCTAssertEqual(records.first?.string("key"), tiny)
        XCTAssertEqual(records.first?.int("bytes"), bytes)
        XCTAssertEqual(records.first?.string("reason"), "expired")
        XCTAssertEqual(records.first?["removed"] as? Bool, false)
        let summary = try XCTUnwrap(records.last)
        XCTAssertEqual(summary["summary"] as? Bool, true)
        XCTAssertEqual(summary["dry_run"] as? Bool, true)
        XCTAssertEqual(summary.int("checked"), 3)
        XCTAssertEqual(summary.int("entries"), 1)
        XCTAssertEqual(summary.int("bytes"), bytes)
        XCTAssertEqual(summary.int("broken_files"), 1)
        XCTAssertEqual(summary.int("broken_bytes"), 3000)

        XCTAssertEqual(try listed().count, before.count, "nothing removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: broken.path), "the broken file stays")

        // The real run removes what the dry run said, and says what it checked.
        let real = try cache(["prune"])
        assertExit(real, 0)
        XCTAssertTrue(real.stderr.hasPrefix("imgfetch: removed 1 entry"), "\(real)")
        XCTAssertTrue(real.stderr.contains("expired entries and broken files") && real.stderr.contains("1 broken file"), "\(real)")
        XCTAssertEqual(Set(try listed().compactMap { $0.string("key") }), Set(before.compactMap { $0.string("key") }).subtracting([tiny]))
        XCTAssertFalse(FileManager.default.fileExists(atPath: broken.path))

        let again = try cache(["prune"])
        assertExit(again, 0)
        XCTAssertTrue(again.stderr.hasPrefix("imgfetch: expired entries and broken files: none"), "\(again)")
    }

    func testDryRunWithMaxSizeListsWhatEvictionTakesAndTheRealRunTakesTheSame() throws {
        _ = try populate()
        let before = try listed()
        let footprints = before.compactMap { $0.int("bytes") }.map { $0 + 512 }
        let limit = footprints.reduce(0, +) - 1   // one entry has to go
        let dry = try cache(["prune", "--max-size", "\(limit)", "--dry-run", "--json"])
        assertExit(dry, 0)
        let planned = dry.json.dropLast()
        XCTAssertFalse(planned.isEmpty, "\(dry)")
        XCTAssertTrue(planned.allSatisfy { $0.string("reason") == "size_limit" }, "--max-size alone takes no expired entry by itself: \(dry)")
        XCTAssertEqual(dry.json.last?.int("entries"), planned.count)
        XCTAssertEqual(try listed().count, before.count, "nothing removed")

        let real = try cache(["prune", "--max-size", "\(limit)", "--json"])
        assertExit(real, 0)
        XCTAssertEqual(real.json.dropLast().compactMap { $0.string("key") }, planned.compactMap { $0.string("key") }, "\(real)")
        XCTAssertEqual(real.json.last?["dry_run"] as? Bool, false)
        let left = try listed()
        XCTAssertEqual(left.count, before.count - planned.count)
        XCTAssertLessThanOrEqual(left.compactMap { $0.int("bytes") }.map { $0 + 512 }.reduce(0, +), limit)
    }
}
