import Foundation
import XCTest

/// Lines of one list that are in flight at once share a retrieval only when they are the same
/// request: a line's result is the one it has alone, whatever the order and the timing.
final class PrefetchSharingTests: E2ETestCase {
    /// What a user checks of one line's record.
    struct Outcome: Equatable, CustomStringConvertible {
        var status: String
        var source: String?
        var lowData: Bool
        var error: String?
        var format: String?
        var width: Int?
        var description: String {
            "\(status) source=\(source ?? "-") low_data=\(lowData) error=\(error ?? "-") \(format ?? "-") w=\(width.map(String.init) ?? "-")"
        }
    }

    private var runs = 0

    /// `prefetch --json` of `lines` into a cache of its own: each line's outcome, by line number.
    private func outcomes(_ lines: [String], _ options: [String] = [],
                          file: StaticString = #filePath, line: UInt = #line) throws -> [Int: Outcome] {
        runs += 1
        let cache = work.appendingPathComponent("cache-\(runs)").path
        let list = try writeList(lines, name: "list-\(runs).txt")
        let r = try imgfetch(["prefetch", "--cache-dir", cache, "--json", "-j", "8"] + options + [list.path])
        var byLine: [Int: Outcome] = [:]
        for record in r.json where record["summary"] == nil {
            guard let n = record.int("line") else {
                XCTFail("a record without its line: \(record)", file: file, line: line)
                continue
            }
            byLine[n] = Outcome(status: record.string("status") ?? "?", source: record.string("source"),
                                lowData: record["low_data"] as? Bool ?? false,
                                error: (record["error"] as? [String: Any])?["code"] as? String,
                                format: record.string("format"), width: record.int("width"))
        }
        XCTAssertEqual(byLine.count, lines.count, "one record per line:\n\(r)", file: file, line: line)
        return byLine
    }

    /// Both lines together, in both orders, give each line the result it has alone.
    private func assertEachLineAsAlone(_ a: String, _ b: String, _ options: [String] = [],
                                       file: StaticString = #filePath, line: UInt = #line) throws {
        let alone = [a: try outcomes([a], options)[1], b: try outcomes([b], options)[1]]
        XCTAssertNotEqual(alone[a], alone[b], "the two lines differ in their outcome alone", file: file, line: line)
        for order in [[a, b], [b, a]] {
            let together = try outcomes(order, options, file: file, line: line)
            for (i, text) in order.enumerated() {
                XCTAssertEqual(together[i + 1], alone[text], "line \(i + 1) (\(text)) together with the other",
                               file: file, line: line)
            }
        }
    }

    /// A source slow enough that both lines of a list are in flight at once.
    private func slow(_ name: String, _ tag: String) -> String { server.url("/slow/\(name)?seconds=0.4&v=\(tag)") }

    func testALineWithAnAlternativeNeverSharesWithOneWithout() throws {
        let missing = slow("missing.jpg", "alt")
        try assertEachLineAsAlone("\(missing) alt=\(imageURL("tiny.jpg"))", missing)
    }

    func testALineWithALowDataSourceNeverSharesWithOneWithout() throws {
        let photo = slow("photo.jpg", "low")
        try assertEachLineAsAlone("\(photo) low-data=\(imageURL("tiny.jpg"))", photo, ["--low-data", "-s", "64"])
    }

    /// Lines that differ only in what they send get their own request each, carrying their own value.
    func testLinesThatSendDifferentThingsEachMakeTheirOwnRequest() throws {
        let fields: [(field: String, header: String, value: String)] = [
            ("header=\"X-Token: a\"", "x-token", "a"), ("user-agent=Bot/2", "user-agent", "Bot/2"),
            ("referer=http://r.example/", "referer", "http://r.example/"), ("cookie=k=v", "cookie", "k=v"),
            ("user=u:p", "authorization", "Basic dTpw"),
        ]
        for (i, f) in fields.enumerated() {
            let path = "/slow/tiny.jpg?seconds=0.4&v=field\(i)"
            let url = server.url(path)
            for order in [["\(url) \(f.field)", url], [url, "\(url) \(f.field)"]] {
                try server.reset()
                let together = try outcomes(order)
                XCTAssertEqual(together.values.map(\.status), ["ok", "ok"], "\(f.field): \(together)")
                let requests = try server.requests(path)
                XCTAssertEqual(requests.count, 2, "\(f.field), order \(order): one request per line")
                let sent = Set(requests.map { $0.headers[f.header] ?? "" })
                XCTAssertTrue(sent.contains(f.value), "\(f.field): the line's own value was sent: \(sent)")
                XCTAssertTrue(sent.contains { $0 != f.value }, "\(f.field): the other line's request went without it: \(sent)")
            }
        }
    }

    /// A cold run with duplicate lines says they were shared, not cached: `hits` stays what the
    /// cache answered (none), `shared` counts the lines that shared a retrieval.
    func testDuplicateLinesOfAColdRunAreSharedNotCached() throws {
        let list = try writeList(Array(repeating: server.url("/slow/tiny.jpg?seconds=0.3&v=words"), count: 3))
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", list.path])
        assertExit(r, 0)
        let summary = try XCTUnwrap(r.json.last)
        XCTAssertEqual(summary["summary"] as? Bool, true)
        XCTAssertEqual(summary.int("hits"), 0, "nothing was in the cache: \(summary)")
        XCTAssertEqual(summary.int("shared"), 2, "\(summary)")
        XCTAssertEqual(r.json.count, 4, "three records and the summary on stdout, nothing else")
        XCTAssertTrue(r.stderr.contains("3 ok (0 cached, 2 shared, 0 low-data)"), r.stderr)
        let warm = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", list.path])
        XCTAssertEqual(warm.json.last?.int("hits"), 3, "a warm run: the cache answered each line")
        XCTAssertEqual(warm.json.last?.int("shared"), 0)
    }

    /// Duplicate lines read after their first copy finished find the entry it stored: on a cold run
    /// that is the same retrieval, shared, not a cache hit. One line 30 times between 30 others, -j 2:
    /// the old binary said "60 ok (26 cached, 3 shared, 0 low-data)" (hits 26) of a cold run.
    func testDuplicatesAfterTheirFirstLineFinishedAreSharedNotCached() throws {
        let list = try writeList((1...30).flatMap { [imageURL("tiny.jpg"), imageURL("small.webp", "v=\($0)")] })
        let r = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--json", "-j", "2", "-s", "16", list.path])
        assertExit(r, 0)
        let summary = try XCTUnwrap(r.json.last)
        XCTAssertEqual(summary.int("hits"), 0, "nothing was in the cache: \(summary)")
        XCTAssertEqual(summary.int("shared"), 29, "\(summary)")
        XCTAssertTrue(r.stderr.contains("60 ok (0 cached, 29 shared, 0 low-data)"), r.stderr)
        let warm = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--json", "-j", "2", "-s", "16", list.path])
        XCTAssertEqual(warm.json.last?.int("hits"), 60, "a warm run: the cache answered each line")
        XCTAssertEqual(warm.json.last?.int("shared"), 0)
        XCTAssertTrue(warm.stderr.contains("60 ok (60 cached, 0 low-data)"), warm.stderr)
    }

    func testIdenticalLinesStillShareOneRequest() throws {
        let path = "/slow/tiny.jpg?seconds=0.3&v=same"
        let list = try writeList(Array(repeating: server.url(path), count: 10_000))
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", list.path], timeout: 120)
        assertExit(r, 0)
        XCTAssertEqual(try server.requestCount(path), 1, "10,000 copies of one line: one request")
        XCTAssertEqual(r.json.last?.int("ok"), 10_000)
    }
}
