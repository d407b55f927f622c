import Foundation
import XCTest

/// Tabular prefetch lists: CSV (RFC 4180), TSV, JSONL, with `--url-column`, `--keep-columns` and
/// `--key-column`; a bad row is a malformed line with its row number, never the end of the run.
final class TabularListTests: E2ETestCase {
    private func prefetch(_ args: [String], timeout: TimeInterval = 60) throws -> RunResult {
        try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-s", "32x32"] + args, timeout: timeout)
    }

    private func records(_ r: RunResult) -> [[String: Any]] { r.json.filter { $0["summary"] == nil } }

    private func write(_ text: String, _ name: String) throws -> URL {
        let url = file(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    func testCSVWithQuotesLineBreaksAndAMissingColumn() throws {
        let photo = imageURL("photo.jpg"), tiny = imageURL("tiny.jpg"), alpha = imageURL("alpha.png")
        let csv = "id,url,caption\r\n"
            + "a1,\(photo),\"a \"\"quoted\"\", caption\nover two lines\"\r\n"   // row 2
            + "b2\n"                                                          // row 3: no url column
            + "c3,\(tiny),x\"y\n"                                             // row 4: a bad quote
            + "d4,\(alpha),\"plain\"\n"                                       // row 5
        let list = try write(csv, "list.csv")
        let r = try prefetch(["--json", "--keep-columns", "caption,id", list.path])
        assertExit(r, 1)
        let got = records(r)
        XCTAssertEqual(got.count, 2, "\(r)")
        let first = got.first { $0.int("line") == 2 }
        let columns = first?["columns"] as? [String: Any]
        XCTAssertEqual(columns?["caption"] as? String, "a \"quoted\", caption\nover two lines", "\(r)")
        XCTAssertEqual(columns?["id"] as? String, "a1")
        XCTAssertEqual(first?.string("source"), photo)
        XCTAssertEqual(((got.first { $0.int("line") == 5 })?["columns"] as? [String: Any])?["caption"] as? String, "plain", "\(r)")
        XCTAssertTrue(r.stderr.contains("list.csv: row 3: no 'url' column"), r.stderr)
        XCTAssertTrue(r.stderr.contains("list.csv: row 4: field 3: a quote inside an unquoted field"), r.stderr)
        XCTAssertEqual(r.json.last?.int("malformed"), 2, "\(r)")
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg")), 0, "the malformed row is not fetched")
        XCTAssertEqual(try server.requestCount(imagePath("alpha.png")), 1, "the rows after the bad ones are")

        // --save-remaining: the header, then the rows not done, as written (the line break kept).
        let left = file("left.csv")
        let again = try prefetch(["--save-remaining", left.path, "--url-column", "url", list.path])
        assertExit(again, 1)
        let saved = String(decoding: try Data(contentsOf: left), as: UTF8.self)
        XCTAssertEqual(saved, "id,url,caption\nb2\nc3,\(tiny),x\"y\n", "\(again)")
    }

    func testTSVAndAnotherURLColumn() throws {
        let list = try write("name\tlink\tnote\nphoto\t\(imageURL("photo.jpg"))\tsome \"text\"\nnone\t\t-\n", "list.tsv")
        let r = try prefetch(["--json", "--url-column", "link", "--keep-columns", "note", list.path])
        assertExit(r, 1)
        let got = records(r)
        XCTAssertEqual(got.count, 1, "\(r)")
        XCTAssertEqual(got.first?.int("line"), 2)
        XCTAssertEqual((got.first?["columns"] as? [String: Any])?["note"] as? String, "some \"text\"", "quotes are text in TSV")
        XCTAssertTrue(r.stderr.contains("list.tsv: row 3: an empty 'link' cell"), r.stderr)
        let missing = try prefetch([list.path])
        assertExit(missing, 2)
        XCTAssertTrue(missing.stderr.contains("no column 'url' in its header"), missing.stderr)
    }

    func testJSONLList() throws {
        let list = try write("""
            {"url": "\(imageURL("photo.jpg"))", "caption": "caf\\u00e9 \\"x\\"", "width": 1200, "meta": {"a": [1, {"b": "}"}]}}
            {"caption": "no url"}
            not json
            {"url": "\(imageURL("alpha.png"))", "caption": null}

            """, "list.jsonl")
        let r = try prefetch(["--json", "--keep-columns", "caption,width,meta", list.path])
        assertExit(r, 1)
        let got = records(r)
        XCTAssertEqual(got.count, 2, "\(r)")
        let first = (got.first { $0.int("line") == 1 })?["columns"] as? [String: Any]
        XCTAssertEqual(first?["caption"] as? String, "café \"x\"", "\(r)")
        XCTAssertEqual(first?["width"] as? String, "1200", "a number as its text")
        XCTAssertTrue(first?["meta"] is NSNull, "an object is no text: null")
        XCTAssertTrue(((got.first { $0.int("line") == 4 })?["columns"] as? [String: Any])?["caption"] is NSNull)
        XCTAssertTrue(r.stderr.contains("list.jsonl: row 2: no 'url' column"), r.stderr)
        XCTAssertTrue(r.stderr.contains("list.jsonl: row 3: not a JSON object"), r.stderr)
    }

    func testHostileKeyColumnValuesAreMalformedRows() throws {
        let url = imageURL("photo.jpg")
        let hostile = ["../../etc/passwd", "a.jpg", String(repeating: "k", count: 65), "", "a b", "caf\u{e9}", "x\\y"]
        var csv = "key,url\nok_1-Z,\(url)\n"
        for value in hostile { csv += "\"\(value)\",\(url)\n" }
        csv += String(repeating: "k", count: 64) + ",\(url)\n"
        let list = try write(csv, "keys.csv")
        let r = try prefetch(["--json", "--key-column", "key", list.path])
        assertExit(r, 1)
        let keys = records(r).compactMap { $0.string("row_key") }.sorted()
        XCTAssertEqual(keys, [String(repeating: "k", count: 64), "ok_1-Z"], "\(r)")
        XCTAssertEqual(r.json.last?.int("malformed"), hostile.count, "\(r)")
        for row in 3..<(3 + hostile.count) {
            XCTAssertTrue(r.stderr.contains("keys.csv: row \(row): --key-column 'key' value"), "row \(row): \(r.stderr)")
        }
        XCTAssertFalse(r.stderr.contains("/etc/passwd' is"), "the value is quoted, then the problem")
    }

    /// One field of 256 MiB: one malformed row naming its number, the next row still fetched, and
    /// the process stays small (peak RSS, from the kernel's accounting of the child).
    func testCSVBombIsOneMalformedRowInBoundedMemory() throws {
        let list = file("bomb.csv")
        FileManager.default.createFile(atPath: list.path, contents: nil)
        let handle = try FileHandle(forWritingTo: list)
        handle.write(Data("url,caption\n\(imageURL("tiny.jpg")),a\n\(imageURL("photo.jpg")),\"".utf8))
        let chunk = Data(repeating: 65, count: 1 << 20)
        for _ in 0..<256 { handle.write(chunk) }
        handle.write(Data("\"\n\(imageURL("alpha.png")),b\n".utf8))
        try handle.close()
        guard let binary = E2EPaths.binary else { throw Imgfetch.NotBuilt() }
        let script = """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], capture_output=True)
            sys.stderr.write(r.stderr.decode())
            print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"),
                                  ["python3", "-c", script, binary.path, "prefetch", "--cache-dir", cacheDir.path, list.path],
                                  environment: Imgfetch.baseEnvironment(home: home), currentDirectory: work, timeout: 120)
        let words = r.stdoutText.split(separator: " ").map { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertEqual(words.first ?? nil, 1, "exit 1 (a malformed row): \(r)")
        XCTAssertLessThan(words.last.flatMap { $0 } ?? .max, 150_000, "peak RSS in KB, for a 256 MiB field: \(r)")
        XCTAssertTrue(r.stderr.contains("bomb.csv: row 3: row longer than 64 KiB, skipped"), r.stderr)
        XCTAssertTrue(r.stderr.contains("2 ok"), r.stderr)
        XCTAssertEqual(try server.requestCount(imagePath("alpha.png")), 1, "the row after the bomb is fetched")
    }

    func testTableOptionsAreInTheShardDigestAndNeedATable() throws {
        let list = try write("url,caption\n\(imageURL("tiny.jpg")),a\n", "list.csv")
        let shards = file("shards")
        let first = try prefetch(["--shard", "1/1", "--shard-dir", shards.path, list.path])
        assertExit(first, 0)
        let other = try prefetch(["--shard", "1/1", "--shard-dir", shards.path, "--keep-columns", "caption", list.path])
        assertExit(other, 2)
        XCTAssertTrue(other.stderr.contains("for another list or other options"), other.stderr)
        let same = try prefetch(["--shard", "1/1", "--shard-dir", shards.path, "--input-format", "csv", list.path])
        assertExit(same, 0)
        XCTAssertTrue(same.stderr.contains("already done"), same.stderr)

        let lines = try writeList([imageURL("tiny.jpg")])
        let plain = try prefetch(["--keep-columns", "caption", lines.path])
        assertExit(plain, 2)
        XCTAssertTrue(plain.stderr.contains("need a table"), plain.stderr)
        let bad = try prefetch(["--input-format", "xlsx", list.path])
        assertExit(bad, 2)
        XCTAssertTrue(bad.stderr.contains("expected lines, csv, tsv or jsonl"), bad.stderr)
    }
}
