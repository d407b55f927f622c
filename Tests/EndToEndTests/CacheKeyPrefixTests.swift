import Foundation
import XCTest

/// `cache info` and `cache rm` take the short keys `cache ls` prints: any unique prefix of at least
/// 6 hex digits; `key:PREFIX` forces a key, `./NAME` a path, and a file that exists wins.
final class CacheKeyPrefixTests: E2ETestCase {
    private func cache(_ args: [String]) throws -> RunResult {
        try imgfetch(["cache"] + args + ["--cache-dir", cacheDir.path])
    }

    private func listedKeys() throws -> [String] {
        let r = try cache(["ls", "--json"])
        assertExit(r, 0)
        return r.json.compactMap { $0.string("key") }
    }

    /// One cached entry (a 100-pixel variant, no original): its full key.
    private func oneEntry(_ name: String = "photo.jpg") throws -> String {
        assertExit(try get([imageURL(name), "-s", "100", "--no-keep-original", "-o", file("out-\(name)").path]), 0)
        let keys = try listedKeys()
        XCTAssertEqual(keys.count, 1, "\(keys)")
        return keys.first ?? ""
    }

    /// Plants a copy of entry `key` under `newKey` (its metadata's key line rewritten): two entries
    /// whose keys share a prefix, which real SHA-256 keys almost never do.
    private func plantCopy(of key: String, as newKey: String) throws {
        let shard = cacheDir.appendingPathComponent("v1/\(key.prefix(2))")
        let newShard = cacheDir.appendingPathComponent("v1/\(newKey.prefix(2))")
        try FileManager.default.createDirectory(at: newShard, withIntermediateDirectories: true)
        let meta = try String(contentsOf: shard.appendingPathComponent("\(key).meta"), encoding: .utf8)
        try meta.replacingOccurrences(of: "key\t\(key)\n", with: "key\t\(newKey)\n")
            .write(to: newShard.appendingPathComponent("\(newKey).meta"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: shard.appendingPathComponent("\(key).jpg"),
                                         to: newShard.appendingPathComponent("\(newKey).jpg"))
    }

    func testTheTwelveDigitKeyThatLsPrintsWorksForInfoAndRm() throws {
        let key = try oneEntry()
        let table = try cache(["ls"])
        assertExit(table, 0)
        let short = String(key.prefix(12))
        XCTAssertTrue(table.stdoutText.contains(short), "ls prints the 12-digit key:\n\(table)")

        let info = try cache(["info", short, "--json"])
        assertExit(info, 0)
        XCTAssertEqual(singleRecord(info).string("key"), key)
        let six = try cache(["info", String(key.prefix(6)).uppercased()])
        assertExit(six, 0)
        XCTAssertTrue(six.stdoutText.contains(key), "6 digits, any case:\n\(six)")

        let rm = try cache(["rm", short])
        assertExit(rm, 0)
        XCTAssertTrue(try listedKeys().isEmpty, "removed by its short key")
        XCTAssertFalse(FileManager.default.fileExists(atPath: cacheDir.path + "/v1/\(key.prefix(2))/\(key).jpg"))
    }

    func testAnAmbiguousPrefixIsAnErrorListingTheCandidatesAndRemovesNothing() throws {
        let key = try oneEntry()
        let a = String(key.prefix(8)) + String(repeating: "0", count: 56)
        let b = String(key.prefix(8)) + String(repeating: "1", count: 56)
        try plantCopy(of: key, as: a == key ? b : a)
        try plantCopy(of: key, as: b == key ? a : b)
        XCTAssertEqual(try listedKeys().count, 3)

        let info = try cache(["info", String(key.prefix(8))])
        assertExit(info, 2)
        XCTAssertTrue(info.stderr.contains("ambiguous"), "\(info)")
        for k in Set([key, a, b]) { XCTAssertTrue(info.stderr.contains(k), "lists candidate \(k):\n\(info)") }
        XCTAssertTrue(info.stdoutText.isEmpty, "\(info)")

        let rm = try cache(["rm", key, String(key.prefix(8))])
        assertExit(rm, 2)
        XCTAssertEqual(try listedKeys().count, 3, "an ambiguous argument removes nothing, not even the unique ones before it")

        // The whole key is unique again.
        let unique = try cache(["info", key, "--json"])
        assertExit(unique, 0)
        XCTAssertEqual(singleRecord(unique).string("key"), key)
    }

    func testAFileThatExistsWinsOverAPrefixAndKeyColonForcesTheKey() throws {
        let key = try oneEntry()
        let short = String(key.prefix(10))
        // A file in the working directory named like the prefix, itself cached as a source.
        try FileManager.default.copyItem(at: E2EPaths.fixture("portrait.jpg"), to: file(short))
        assertExit(try imgfetch(["get", "--cache-dir", cacheDir.path, short, "-o", file("p.jpg").path]), 0)

        let fileEntries = try listedKeys().count - 1
        let asPath = try cache(["info", short, "--json"])
        assertExit(asPath, 0)
        XCTAssertEqual(asPath.json.count, fileEntries, "\(asPath)")
        XCTAssertTrue(asPath.json.allSatisfy { $0.string("source") == file(short).path }, "the existing file wins:\n\(asPath)")

        let asKey = try cache(["info", "key:" + short, "--json"])
        assertExit(asKey, 0)
        XCTAssertEqual(singleRecord(asKey).string("key"), key, "key: forces the key:\n\(asKey)")

        let rmKey = try cache(["rm", "key:" + short])
        assertExit(rmKey, 0)
        XCTAssertFalse(try listedKeys().contains(key))
        XCTAssertEqual(try listedKeys().count, fileEntries, "the file's entries stay")
    }

    func testDotSlashForcesAPathAndShortOrMalformedKeysAreRejected() throws {
        let key = try oneEntry()
        let six = String(key.prefix(6))
        let dotted = try cache(["info", "./" + six])
        assertExit(dotted, 1)
        XCTAssertTrue(dotted.stderr.contains("not in the cache"), "./PREFIX is a path, not cached:\n\(dotted)")

        // 5 hex digits, no file of that name cached: meant as a key, and too short for one.
        let five = try cache(["info", String(key.prefix(5))])
        assertExit(five, 2)
        XCTAssertTrue(five.stderr.contains("a key prefix needs at least 6 hex digits"), "5 digits are too short a key:\n\(five)")

        for bad in ["key:" + String(key.prefix(5)), "key:xyz123", "key:" + key + "0"] {
            let r = try cache(["info", bad])
            assertExit(r, 2)
            XCTAssertTrue(r.stderr.contains("hex digits"), "\(bad):\n\(r)")
        }
        let absent = try cache(["rm", "key:" + (key.hasPrefix("0") ? "1" : "0") + String(key.prefix(7).dropFirst())])
        assertExit(absent, 1)
        XCTAssertTrue(absent.stderr.contains("not in the cache"), "\(absent)")
        XCTAssertEqual(try listedKeys(), [key], "nothing was removed")
    }
}
