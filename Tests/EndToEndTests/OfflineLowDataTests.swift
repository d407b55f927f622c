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

    /// After a run that loaded the low-data source, `--offline` and `--cache-only` find its entry
    /// through the request alone (the cache's low-data index), with or without the low-data
    /// options; `cache rm` of the low-data entry takes its index with it.
    func testOfflineFindsTheLowDataEntryWithoutTheLowDataOptions() throws {
        let original = imageURL("photo.jpg"), small = imageURL("tiny.jpg")
        assertExit(try get([original, "-s", "50", "--low-data", "--low-data-source", small, "-o", file("a.jpg").path]), 0)
        for policy in ["--offline", "--cache-only"] {
            for lowData in [[], ["--low-data"]] {
                let r = try get([original, "-s", "50", policy, "--json", "-o", file("b.jpg").path] + lowData)
                assertExit(r, 0)
                let record = singleRecord(r)
                XCTAssertEqual(record["low_data"] as? Bool, true, "\(policy) \(lowData): \(record)")
                XCTAssertEqual(record.string("source"), small, "\(record)")
                XCTAssertEqual(record.string("original_source"), original, "\(record)")
            }
        }
        XCTAssertEqual(indexFiles().count, 1)
        assertExit(try imgfetch(["cache", "rm", small, "--cache-dir", cacheDir.path]), 0)
        XCTAssertEqual(indexFiles(), [], "removed with its entry")
        let gone = try get([original, "-s", "50", "--offline", "--json", "-o", file("c.jpg").path])
        assertExit(gone, 3)
        XCTAssertEqual(errorCode(singleRecord(gone)), "not_cached")
    }

    /// A list's `low-data=` is indexed too; a hostile index finds nothing; eviction and
    /// `verify --repair` leave no index behind.
    func testAListsLowDataEntryIsIndexedAndTheIndexIsHostileAndRemoved() throws {
        let original = imageURL("photo.jpg", "v=list"), small = imageURL("tiny.jpg", "v=list")
        let list = try writeList(["\(original) low-data=\(small)"])
        assertExit(try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-s", "50", "--low-data", list.path]), 0)
        let offline = [original, "-s", "50", "--offline", "--json", "-o", file("o.jpg").path]
        assertExit(try get(offline), 0)
        let index = try XCTUnwrap(indexFiles().first)
        let saved = try Data(contentsOf: index)
        // Garbage, then a record naming an entry that does not name this request back: not served.
        let other = try XCTUnwrap(try imgfetch(["cache", "ls", "--json", "--cache-dir", cacheDir.path]).stdoutText
            .split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { ($0["source"] as? String) == original || ($0["variant"] as? String) == "original" }?["key"] as? String)
        for text in [String(repeating: "\u{1}", count: 9000), "imgfetch-low-data 1\n\(other)\n\(small)\n"] {
            try Data(text.utf8).write(to: index)
            let r = try get(offline)
            assertExit(r, 3)
            XCTAssertEqual(errorCode(singleRecord(r)), "not_cached")
        }
        let verify = try imgfetch(["cache", "verify", "--repair", "--cache-dir", cacheDir.path])
        XCTAssertTrue(verify.stdoutText.contains("low-data index"), verify.stdoutText + verify.stderr)
        XCTAssertEqual(indexFiles(), [], "verify --repair removes an index that finds nothing")
        try saved.write(to: index)
        assertExit(try get(offline), 0)
        // The size limit evicts the low-data entry, and its index with it.
        assertExit(try get([imageURL("photo.jpg", "v=big"), "--cache-size-limit", "1K", "-o", file("e.jpg").path]), 0)
        XCTAssertEqual(indexFiles(), [], "evicted with its entry")
        assertExit(try get(offline), 3)
    }

    private func indexFiles() -> [URL] {
        let directory = cacheDir.appendingPathComponent("v1/lowdata")
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).map { directory.appendingPathComponent($0) }
    }
}
