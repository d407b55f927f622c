import Foundation
import XCTest

/// `cache ls|rm|prune` filters (`--larger-than`, `--smaller-than`, `--older-than`, `--newer-than`,
/// `--expired`, `--fresh`, `--format`, with `--source`, `--originals`, `--variants`), ANDed, as a
/// script uses them: exit codes, jq-able JSON, stdout only the data.
final class CacheFilterTests: E2ETestCase {
    private func cache(_ args: [String]) throws -> RunResult {
        try imgfetch(["cache"] + args + ["--cache-dir", cacheDir.path])
    }

    /// `cache ls --json [filters]`: the keys listed (exit 0 and one JSON object a line asserted).
    private func keys(_ filters: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Set<String> {
        let r = try cache(["ls", "--json"] + filters)
        assertExit(r, 0, file: file, line: line)
        XCTAssertEqual(r.json.count, r.stdoutText.split(separator: "\n").count, "only JSON on stdout:\n\(r)", file: file, line: line)
        XCTAssertEqual(r.stderr, "", "nothing on stderr:\n\(r)", file: file, line: line)
        return Set(r.json.compactMap { $0.string("key") })
    }

    private func all() throws -> [[String: Any]] {
        let r = try cache(["ls", "--json"])
        assertExit(r, 0)
        return r.json
    }

    /// photo.jpg at 300 (its original kept beside), tiny.jpg living 1 s, small.webp, their stored
    /// time set back an hour (as a cache an hour old: no test time depends on the machine's load);
    /// then, 1.5 s later (tiny.jpg has expired), grey.jpg. Returns grey's key.
    private func populate() throws -> String {
        assertExit(try get([imageURL("photo.jpg"), "-s", "300", "-o", file("a.jpg").path]), 0)
        assertExit(try get([imageURL("tiny.jpg", "cc=max-age=1"), "-o", file("t.jpg").path]), 0)
        assertExit(try get([imageURL("small.webp"), "-o", file("s.webp").path]), 0)
        try backdateStoredTimes(by: 3600)
        Thread.sleep(forTimeInterval: 1.5)
        let grey = try get(["--json", imageURL("grey.jpg"), "-o", file("g.jpg").path])
        assertExit(grey, 0)
        return try XCTUnwrap(singleRecord(grey).string("key"))
    }

    /// Every entry's `created` (what the age filters read) `seconds` earlier.
    private func backdateStoredTimes(by seconds: Double) throws {
        let files = FileManager.default.enumerator(at: cacheDir.appendingPathComponent("v1"), includingPropertiesForKeys: nil)!
        var changed = 0
        for case let url as URL in files where url.pathExtension == "meta" {
            let text = try String(contentsOf: url, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                guard line.hasPrefix("created\t"), let t = Double(line.dropFirst(8)) else { return String(line) }
                return "created\t\(t - seconds)"
            }
            try lines.joined(separator: "\n").write(to: url, atomically: false, encoding: .utf8)
            changed += 1
        }
        XCTAssertEqual(changed, 4, "the four entries (photo's original and variant, tiny, small) were back-dated")
    }

    func testListFiltersSelectBySizeAgeExpiryAndFormatCombinedWithAnd() throws {
        let grey = try populate()
        let entries = try all()
        XCTAssertEqual(entries.count, 5, "\(entries)")
        func where_(_ keep: ([String: Any]) -> Bool) -> Set<String> { Set(entries.filter(keep).compactMap { $0.string("key") }) }
        let sizes = entries.compactMap { $0.int("bytes") }.sorted()
        let middle = sizes[2]

        XCTAssertEqual(try keys(["--larger-than", "\(middle)"]), where_ { $0.int("bytes")! > middle })
        XCTAssertEqual(try keys(["--smaller-than", "\(middle)"]), where_ { $0.int("bytes")! < middle })
        XCTAssertEqual(try keys(["--larger-than", "\(middle - 1)", "--smaller-than", "\(middle + 1)"]).count, 1, "exactly the middle one")
        XCTAssertEqual(try keys(["--larger-than", "1G"]), [], "a size with a suffix; nothing that large")

        let webp = where_ { $0.string("format") == "webp" }
        XCTAssertFalse(webp.isEmpty)
        XCTAssertEqual(try keys(["--format", "webp"]), webp)
        XCTAssertEqual(try keys(["--format", "jpg"]), where_ { $0.string("format") == "jpeg" }, "jpg names jpeg")

        // By the time stored: the rest an hour before grey.jpg.
        XCTAssertEqual(try keys(["--newer-than", "30m"]), [grey])
        XCTAssertEqual(try keys(["--older-than", "30m"]), where_ { $0.string("key") != grey })
        XCTAssertEqual(try keys(["--older-than", "1d"]), [])

        // tiny.jpg lived 1 s.
        let expired = where_ { $0.string("source") == imageURL("tiny.jpg", "cc=max-age=1") }
        XCTAssertEqual(expired.count, 1)
        XCTAssertEqual(try keys(["--expired"]), expired)
        XCTAssertEqual(try keys(["--fresh"]), where_ { $0["fresh"] as? Bool == true })
        XCTAssertTrue(try keys(["--fresh"]).isDisjoint(with: expired))

        // AND, with the filters there were.
        XCTAssertEqual(try keys(["--originals", "--format", "jpeg", "--older-than", "30m"]),
                       where_ { $0.string("variant") == "original" && $0.string("format") == "jpeg" && $0.string("key") != grey })
        XCTAssertEqual(try keys(["--variants", "--source", "photo", "--larger-than", "0"]),
                       where_ { $0.string("variant") != "original" && $0.string("source")!.contains("photo") })

        // The text listing: the header, then the matching rows only.
        let text = try cache(["ls", "--format", "webp"])
        assertExit(text, 0)
        let rows = text.stdoutText.split(separator: "\n")
        XCTAssertEqual(rows.count, 1 + webp.count, "\(text)")
        XCTAssertTrue(rows.dropFirst().allSatisfy { $0.contains("webp") && $0.contains("small.webp") }, "\(text)")
        // --sort reads the matching entries first, and still filters.
        XCTAssertEqual(Set(try cache(["ls", "--json", "--sort", "size", "--format", "webp"]).json.compactMap { $0.string("key") }), webp)
    }

    func testBadFilterValuesAreUsageErrorsNamingTheOption() throws {
        for (args, named) in [(["--larger-than", "lots"], "--larger-than"), (["--older-than", "5y"], "--older-than"),
                              (["--format", "bmp"], "--format"), (["--expired", "--fresh"], "--fresh")] {
            for command in ["ls", "rm", "prune"] {
                let r = try cache([command] + args)
                assertExit(r, 2)
                XCTAssertEqual(r.stdoutText, "", "\(r)")
                XCTAssertTrue(r.stderr.contains(named), "names \(named):\n\(r)")
            }
        }
        let bare = try cache(["rm"])
        assertExit(bare, 2)
        XCTAssertTrue(bare.stderr.contains("SOURCE|KEY"), "\(bare)")
    }

    func testRmAndPruneTakeTheSameFilters() throws {
        let grey = try populate()
        let entries = try all()
        // rm with filters alone: every entry they match.
        let rm = try cache(["rm", "--format", "webp"])
        assertExit(rm, 0)
        XCTAssertTrue(rm.stderr.hasPrefix("imgfetch: removed 1 entry"), "\(rm)")
        XCTAssertEqual(try keys(["--format", "webp"]), [])
        XCTAssertEqual(try keys([]).count, entries.count - 1)

        // rm SOURCE with a filter: only that source's matching entries (its original, not its variant).
        let photo = imageURL("photo.jpg")
        let original = try cache(["rm", photo, "--originals"])
        assertExit(original, 0)
        XCTAssertTrue(original.stderr.hasPrefix("imgfetch: removed 1 entry of "), "\(original)")
        let left = try all()
        XCTAssertEqual(left.filter { $0.string("source") == photo }.map { $0.string("variant") != "original" }, [true], "the variant stays: \(left)")

        // prune --older-than 30m --originals: one line, only the older originals.
        let older = Set(left.filter { $0.string("variant") == "original" && $0.string("key") != grey }.compactMap { $0.string("key") })
        XCTAssertFalse(older.isEmpty)
        let prune = try cache(["prune", "--older-than", "30m", "--originals", "--json"])
        assertExit(prune, 0)
        let records = prune.json
        XCTAssertEqual(records.count, prune.stdoutText.split(separator: "\n").count, "only JSON on stdout:\n\(prune)")
        XCTAssertEqual(Set(records.dropLast().compactMap { $0.string("key") }), older, "\(prune)")
        XCTAssertTrue(records.dropLast().allSatisfy { $0.string("reason") == "matched" && $0["removed"] as? Bool == true }, "\(prune)")
        XCTAssertEqual(records.last?.int("entries"), older.count)
        let after = try keys([])
        XCTAssertTrue(after.isDisjoint(with: older))
        XCTAssertTrue(after.contains(grey), "the newer original stays")
        XCTAssertEqual(after.count, left.count - older.count)
    }
}
