import Foundation
import XCTest

/// A thumbnail job keeps each source's original beside its thumbnail by default: when those took more
/// than 10x the outputs, the prefetch summary says how much, and names `--no-keep-original`.
final class KeptOriginalsNoteTests: E2ETestCase {
    private let note = "the originals kept beside the outputs took"

    /// The originals' sizes as served (the fixtures' files).
    private func fixtureBytes(_ name: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: E2EPaths.fixture(name).path)[.size] as? Int)
    }

    private func prefetch(_ lines: [String], _ options: [String], cache: String) throws -> (RunResult, [String: Any]) {
        let list = try writeList(lines, name: "list-\(cache).txt")
        let r = try imgfetch(["prefetch", "--cache-dir", work.appendingPathComponent(cache).path, "--json"] + options + [list.path])
        assertExit(r, 0)
        let summary = try XCTUnwrap(r.json.last)
        XCTAssertEqual(summary["summary"] as? Bool, true, "\(r)")
        return (r, summary)
    }

    func testThumbnailsOfLargeOriginalsEndWithTheNoteAndItsFigures() throws {
        let lines = [imageURL("photo.jpg", "v=n1"), imageURL("detail.jpg", "v=n2")]
        let (r, summary) = try prefetch(lines, ["-s", "32x32"], cache: "thumbs")
        let records = r.json.filter { $0["summary"] == nil }
        XCTAssertEqual(records.count, 2)
        let outputs = records.compactMap { $0.int("bytes") }.reduce(0, +)
        let originals = try fixtureBytes("photo.jpg") + fixtureBytes("detail.jpg")
        XCTAssertEqual(summary.int("kept_original_bytes"), originals, "what was kept is the sources' bytes: \(summary)")
        XCTAssertEqual(summary.int("output_bytes"), outputs, "the outputs are the records' bytes: \(summary)")
        XCTAssertGreaterThan(originals, 10 * outputs, "the fixtures make the case: \(originals) vs \(outputs)")
        let noteLine = try XCTUnwrap(r.stderr.split(separator: "\n").first { $0.contains(note) }, r.stderr)
        XCTAssertTrue(noteLine.contains("--no-keep-original"), String(noteLine))
        XCTAssertTrue(noteLine.contains("\(originals / outputs)x"), "how many times the outputs: \(noteLine)")
        XCTAssertFalse(String(data: r.stdout, encoding: .utf8)!.contains(note), "the note is never on stdout")
        // Quiet: no note; the JSON figures stay.
        let (quiet, quietSummary) = try prefetch(lines, ["-s", "32x32", "--quiet"], cache: "thumbs-quiet")
        XCTAssertFalse(quiet.stderr.contains(note), quiet.stderr)
        XCTAssertEqual(quietSummary.int("kept_original_bytes"), originals)
    }

    func testNoNoteWithoutKeptOriginalsOrWhenTheyAreSmall() throws {
        let photo = imageURL("photo.jpg", "v=n3")
        let (without, s1) = try prefetch([photo], ["-s", "32x32", "--no-keep-original"], cache: "nko")
        XCTAssertFalse(without.stderr.contains(note), without.stderr)
        XCTAssertEqual(s1.int("kept_original_bytes"), 0)
        XCTAssertGreaterThan(s1.int("output_bytes") ?? 0, 0)
        // A PNG of the same size as its JPEG source outweighs it: kept, but no note.
        let (png, s2) = try prefetch([imageURL("photo.jpg", "v=n4")], ["-f", "png"], cache: "png")
        XCTAssertEqual(s2.int("kept_original_bytes"), try fixtureBytes("photo.jpg"))
        XCTAssertGreaterThan(s2.int("output_bytes") ?? 0, s2.int("kept_original_bytes") ?? 0, "\(s2)")
        XCTAssertFalse(png.stderr.contains(note), png.stderr)
        // A second run stores nothing: no figures, no note.
        let list = try writeList([photo], name: "again.txt")
        let again = try imgfetch(["prefetch", "--cache-dir", work.appendingPathComponent("thumbs-again").path, "--json", "-s", "32x32", list.path])
        let warm = try imgfetch(["prefetch", "--cache-dir", work.appendingPathComponent("thumbs-again").path, "--json", "-s", "32x32", list.path])
        XCTAssertTrue(again.stderr.contains(note), again.stderr)
        XCTAssertEqual(warm.json.last?.int("kept_original_bytes"), 0, "\(warm)")
        XCTAssertEqual(warm.json.last?.int("output_bytes"), 0, "\(warm)")
        XCTAssertFalse(warm.stderr.contains(note), warm.stderr)
    }

    /// Duplicate lines share one retrieval, which stored one original: counted once.
    func testSharedLinesCountTheirOriginalOnce() throws {
        let url = server.url("/slow/photo.jpg?seconds=0.3&v=n5")
        let (_, summary) = try prefetch(Array(repeating: url, count: 3), ["-s", "32x32", "-j", "4"], cache: "shared")
        XCTAssertEqual(summary.int("shared"), 2, "\(summary)")
        XCTAssertEqual(summary.int("kept_original_bytes"), try fixtureBytes("photo.jpg"), "\(summary)")
    }
}
