import Foundation
import XCTest

/// Hostile contents of a cache directory: metadata naming paths outside it, numbers near Int64.max,
/// terminal escape sequences; and a `cache clear` racing with writers.
final class CacheTamperingTests: E2ETestCase {
    private var v1: URL { cacheDir.appendingPathComponent("v1") }
    private let fm = FileManager.default

    private func cache(_ args: [String]) throws -> RunResult {
        try imgfetch(["cache"] + args + ["--cache-dir", cacheDir.path])
    }

    private func exists(_ url: URL) -> Bool { fm.fileExists(atPath: url.path) }

    /// The text of a `.meta` file, with `fields` replacing or adding to a plausible entry's.
    private func metaText(_ fields: [(String, String)]) -> String {
        var base: [(String, String)] = [
            ("key", String(repeating: "ab", count: 32)), ("identity", "http://example.invalid/x.jpg"),
            ("source", "http://example.invalid/x.jpg"), ("variant", "original"), ("format", "jpeg"),
            ("width", "10"), ("height", "10"), ("bytes", "100"), ("checksum", "xxh64:0000000000000000"),
            ("created", "1000000000"), ("expires", "1000000001")]
        for (name, value) in fields {
            if let i = base.firstIndex(where: { $0.0 == name }) { base[i].1 = value } else { base.append((name, value)) }
        }
        return "imgfetch-meta 1\n" + base.map { "\($0.0)\t\($0.1)\n" }.joined() + "end\n"
    }

    /// Writes a `.meta` file named for `fileKey` into its shard.
    private func plant(_ text: String, fileKey: String) throws -> URL {
        let shard = v1.appendingPathComponent(String(fileKey.prefix(2)))
        try fm.createDirectory(at: shard, withIntermediateDirectories: true)
        let url = shard.appendingPathComponent(fileKey + ".meta")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// A cache with one entry (tiny.jpg's original), made by imgfetch itself (so it is tagged).
    private func populate() throws {
        assertExit(try get([imageURL("tiny.jpg")]), 0)  // to stdout: the original only
    }

    // MARK: - keys from files

    /// A `.meta` whose key climbs out of the cache (`../victim/x` resolves to `ROOT/victim/x.*` from
    /// a shard): no command unlinks the victim's files.
    func testAKeyNamingAPathOutsideTheCacheRemovesNothingThere() throws {
        try populate()
        let victim = root.appendingPathComponent("victim")
        try fm.createDirectory(at: victim, withIntermediateDirectories: true)
        let victims = ["x.meta", "x.jpg", "x.img"].map { victim.appendingPathComponent($0) }
        for url in victims { try Data("keep me\n".utf8).write(to: url) }
        let source = imageURL("photo.jpg")
        let fileKey = "ab" + String(repeating: "1", count: 62)
        let text = metaText([("key", "../victim/x"), ("identity", source), ("source", source), ("bytes", "900000")])
        let runs: [[String]] = [["cache", "ls"], ["cache", "prune"], ["cache", "rm", source], ["cache", "verify", "--repair"],
                                ["cache", "prune", "--max-size", "1"], ["get", imageURL("alpha.png"), "--cache-size-limit", "20K"],
                                ["cache", "clear"]]
        for args in runs {
            _ = try plant(text, fileKey: fileKey)
            try? fm.removeItem(at: v1.appendingPathComponent("usage"))  // the next store counts every entry again
            let r = try imgfetch(args + ["--cache-dir", cacheDir.path] + (args[0] == "get" ? ["-o", file("a.png").path] : []))
            XCTAssertNotEqual(r.status, 4, "\(args): \(r)")
            for url in victims { XCTAssertTrue(exists(url), "\(args.joined(separator: " ")) left \(url.path)") }
        }
    }

    /// A `.meta` whose key is valid but not its own file's is torn: not listed, reported and removed by verify.
    func testAKeyThatIsNotTheFilesOwnIsTorn() throws {
        try populate()
        let other = String(repeating: "cd", count: 32)
        let planted = try plant(metaText([("key", other)]), fileKey: "ab" + String(repeating: "2", count: 62))
        XCTAssertEqual(try cache(["ls", "--json"]).json.count, 1, "only the real entry is listed")
        let verify = try cache(["verify"])
        assertExit(verify, 1)
        XCTAssertTrue(verify.stdoutText.contains("torn"), "\(verify)")
        assertExit(try cache(["verify", "--repair"]), 0)
        XCTAssertFalse(exists(planted), "repair removes the torn metadata")
        assertExit(try cache(["verify"]), 0)
    }

    // MARK: - numbers near Int64.max

    func testHugeNumbersInMetadataAndUsageAreTornNotACrash() throws {
        let url = imageURL("photo.jpg")
        assertExit(try get([url, "-s", "60", "-o", file("a.jpg").path]), 0)
        let entries = try cache(["ls", "--json"]).json
        guard let variant = entries.first(where: { $0.string("variant") != "original" }),
              let key = variant.string("key"), let path = variant.string("path") else { return XCTFail("no variant in \(entries)") }
        let metaURL = URL(fileURLWithPath: path).deletingPathExtension().appendingPathExtension("meta")
        let meta = try String(contentsOf: metaURL, encoding: .utf8)
        let huge = meta.split(separator: "\n").map { $0.hasPrefix("bytes\t") ? "bytes\t9223372036854775807" : String($0) }
            .joined(separator: "\n") + "\n"
        try Data(huge.utf8).write(to: metaURL)
        try Data("9223372036854775800 \n".utf8).write(to: v1.appendingPathComponent("usage"))
        _ = try plant(metaText([("key", "ab" + String(repeating: "3", count: 62)), ("bytes", "9223372036854775807"),
                                ("width", "9223372036854775807"), ("created", "1e308"), ("expires", "inf")]),
                      fileKey: "ab" + String(repeating: "3", count: 62))

        let out = file("b.jpg")
        let r = try get([url, "-s", "60", "--json", "-o", out.path, "--cache-size-limit", "10M"])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r).string("cache"), "derived", "the torn variant is a miss, made again from the original: \(r)")
        assertImageFile(out, .jpeg, width: 60)
        for args in [["stats"], ["stats", "--json"], ["ls"], ["info", key], ["prune"], ["prune", "--max-size", "1G"]] {
            let c = try cache(args)
            assertExit(c, 0)
        }
        try Data("9223372036854775800 \n".utf8).write(to: v1.appendingPathComponent("usage"))
        let verify = try cache(["verify", "--repair"])
        assertExit(verify, 0)
        XCTAssertTrue(verify.stdoutText.contains("torn"), "the planted entry is reported:\n\(verify)")
        assertExit(try cache(["verify"]), 0)
        let stats = singleRecord(try cache(["stats", "--json"]))
        XCTAssertEqual(stats.int("entries"), 2, "\(stats)")
    }

    // MARK: - a concurrent cache clear

    /// Gets storing one after the other while `cache clear` runs again and again: no writer fails
    /// because its directory vanished ("mkdir ...: Not a directory"), and the cache is valid after.
    func testClearRunningDuringGetsAndAPrefetch() throws {
        let home = self.home!, work = self.work!, dir = cacheDir.path
        let names = ["photo.jpg", "portrait.jpg", "alpha.png", "small.webp", "small.gif"]
        let gets = (0..<16).map { imageURL(names[$0 % names.count], "v=\($0)") }
        let list = try writeList((0..<30).map { imageURL(names[$0 % names.count], "w=\($0)") })
        assertExit(try get([imageURL("tiny.jpg"), "-o", file("seed.jpg").path]), 0)
        let results = ResultSlots(count: 3)
        let clearing = ResultSlots(count: 1)
        DispatchQueue.concurrentPerform(iterations: 3) { i in
            switch i {
            case 0:
                var failed: RunResult?
                for (n, url) in gets.enumerated() {
                    let r = try? Imgfetch.run(["get", "--cache-dir", dir, url, "-s", "80", "-o", work.appendingPathComponent("g\(n).png").path],
                                              home: home, currentDirectory: work, timeout: 30)
                    if r?.status != 0 { failed = r; break }
                    failed = r
                }
                results.set(0, failed)
            case 1:
                results.set(1, try? Imgfetch.run(["prefetch", "--cache-dir", dir, "-s", "90", "-j", "4", "--json", "--no-progress", list.path],
                                                 home: home, currentDirectory: work, timeout: 60))
            default:
                var last: RunResult?
                for _ in 0..<40 {
                    last = try? Imgfetch.run(["cache", "clear", "--cache-dir", dir], home: home, currentDirectory: work, timeout: 30)
                    if last?.status != 0 { break }
                }
                clearing.set(0, last)
            }
        }
        let getRun = try XCTUnwrap(results.get(0))
        assertExit(getRun, 0)
        XCTAssertFalse(getRun.stderr.contains("Not a directory"), "\(getRun)")
        let prefetch = try XCTUnwrap(results.get(1))
        assertExit(prefetch, 0)
        XCTAssertFalse(prefetch.stderr.contains("cache directory"), "\(prefetch)")
        let summary = prefetch.json.first { $0["summary"] as? Bool == true } ?? [:]
        XCTAssertEqual(summary.int("ok"), 30, "\(summary)")
        assertExit(try XCTUnwrap(clearing.get(0)), 0)
        assertExit(try cache(["verify"]), 0)
    }

    // MARK: - terminal escape sequences

    /// Rewrites a field of every `.meta` in the cache (as a tampered or hostile cache could hold it).
    private func rewriteMetadata(_ name: String, to value: String, onlyVariants: Bool = false) throws {
        for entry in try cache(["ls", "--json"]).json where !onlyVariants || entry.string("variant") != "original" {
            guard let path = entry.string("path") else { continue }
            let url = URL(fileURLWithPath: path).deletingPathExtension().appendingPathExtension("meta")
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix(name + "\t") }
            let text = lines.dropLast().joined(separator: "\n") + "\n\(name)\t\(value)\nend\n"
            try Data(text.utf8).write(to: url)
        }
    }

    func testControlCharactersFromTheCacheAreEscapedInHumanOutput() throws {
        let url = imageURL("alpha.png")
        assertExit(try get([url, "-s", "20", "-o", file("a.png").path]), 0)
        // What a server (or whoever wrote to the cache) could put there: escape sequences that retitle
        // the terminal and clear it, in the source text, the ETag and the Last-Modified date.
        try rewriteMetadata("source", to: "http://example.invalid/a\u{1B}]0;owned\u{07}\u{1B}[2J.png")
        try rewriteMetadata("etag", to: "\"x\u{1B}[31mred\"", onlyVariants: true)
        try rewriteMetadata("last_modified", to: "Mon\u{9B}2J", onlyVariants: true)
        guard let key = try cache(["ls", "--json"]).json.first(where: { $0.string("variant") != "original" })?.string("key") else {
            return XCTFail("no variant")
        }
        for args in [["ls"], ["info", key], ["info", url], ["rm", url]] {
            let r = try cache(args)
            assertExit(r, 0)
            let control = r.stdout.filter { $0 < 0x20 && $0 != 0x0A }
            XCTAssertTrue(control.isEmpty, "cache \(args[0]) prints no control character: \(control) in\n\(r.stdoutText)")
            XCTAssertFalse(r.stdoutText.unicodeScalars.contains { (0x80...0x9F).contains($0.value) }, "no C1 control either")
            XCTAssertFalse(r.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "nor on stderr: \(r.stderr)")
            XCTAssertTrue((r.stdoutText + r.stderr).contains("a\\x1b]0;owned\\x07\\x1b[2J.png"), "shown escaped:\n\(r.stdoutText)\(r.stderr)")
            if args == ["info", key] {
                XCTAssertTrue(r.stdoutText.contains("\"x\\x1b[31mred\""), "the ETag escaped:\n\(r.stdoutText)")
                XCTAssertTrue(r.stdoutText.contains("Mon\\x9b2J"), "the Last-Modified escaped:\n\(r.stdoutText)")
            }
        }
    }

    func testJSONStillCarriesTheExactText() throws {
        assertExit(try get([imageURL("alpha.png")]), 0)
        let hostile = "http://example.invalid/b\u{1B}[1mbold.png"
        try rewriteMetadata("source", to: hostile)
        let listed = try cache(["ls", "--json"])
        XCTAssertFalse(listed.stdout.contains(0x1B), "JSON escapes it itself")
        XCTAssertEqual(listed.json.first?.string("source"), hostile, "and decodes to the exact source")
    }
}
