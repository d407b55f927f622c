import Foundation
import XCTest

/// `cache ls` streams in key order by default; other orders are asked for with `--sort`.
final class CacheListStreamingTests: E2ETestCase {
    private func cache(_ args: [String]) throws -> RunResult {
        try imgfetch(["cache"] + args + ["--cache-dir", cacheDir.path])
    }

    func testDefaultOrderIsByKeyAndOtherOrdersAreAskedFor() throws {
        for (i, name) in ["photo.jpg", "portrait.jpg", "alpha.png"].enumerated() {
            assertExit(try get([imageURL(name), "-s", "\(80 + i * 10)", "-o", file("o\(i)").path]), 0)
        }
        let json = try cache(["ls", "--json"])
        assertExit(json, 0)
        let keys = json.json.compactMap { $0.string("key") }
        XCTAssertEqual(keys.count, 6, "three originals and three variants:\n\(json)")
        XCTAssertEqual(keys, keys.sorted(), "the default order is the key's")

        let table = try cache(["ls"])
        assertExit(table, 0)
        let shortKeys = table.stdoutText.split(separator: "\n").dropFirst().map { String($0.prefix(12)) }
        XCTAssertEqual(shortKeys, keys.map { String($0.prefix(12)) }, "the table too:\n\(table)")

        let byAge = try cache(["ls", "--json", "--sort", "age"]).json.compactMap { $0.string("created") }
        XCTAssertEqual(byAge, byAge.sorted(by: >), "--sort age: newest first")
        let bad = try cache(["ls", "--sort", "colour"])
        assertExit(bad, 2)
        XCTAssertTrue(bad.stderr.contains("colour"), "\(bad)")
    }

    func testMetadataUnderTheWrongNameOrBehindALinkIsNotListed() throws {
        assertExit(try get([imageURL("photo.jpg"), "-s", "80", "--no-keep-original", "-o", file("o.jpg").path]), 0)
        let key = try XCTUnwrap(try cache(["ls", "--json"]).json.first?.string("key"))
        let shard = cacheDir.appendingPathComponent("v1/\(key.prefix(2))")
        let other = String(key.prefix(2)) + String(repeating: "e", count: 62)
        // A copy of the metadata under another key's name, and a link named like a third key.
        try FileManager.default.copyItem(at: shard.appendingPathComponent("\(key).meta"), to: shard.appendingPathComponent("\(other).meta"))
        try FileManager.default.createSymbolicLink(atPath: shard.appendingPathComponent(String(key.prefix(2)) + String(repeating: "d", count: 62) + ".meta").path,
                                                   withDestinationPath: shard.appendingPathComponent("\(key).meta").path)
        let listed = try cache(["ls", "--json"])
        assertExit(listed, 0)
        XCTAssertEqual(listed.json.compactMap { $0.string("key") }, [key], "\(listed)")
    }
}
