import Foundation
import XCTest

/// `--shard-tar`: a shard's ok lines as a webdataset tar beside its records, read back with the
/// `webdataset` package, Python's `tarfile` and `tar -tvf` (`Tests/Support/shard_tar_check.py`);
/// a killed worker never leaves a truncated tar under its final name.
final class ShardTarTests: E2ETestCase {
    private var shards: URL { work.appendingPathComponent("shards") }

    private func path(_ k: Int, of n: Int, _ ext: String) -> URL {
        shards.appendingPathComponent(String(format: "%05d-of-%05d.%@", k, n, ext))
    }

    private func prefetch(_ list: URL, _ shard: String, _ extra: [String] = [], cache: URL? = nil) throws -> RunResult {
        try imgfetch(["prefetch", "--cache-dir", (cache ?? cacheDir).path, list.path, "--shard", shard,
                      "--shard-dir", shards.path, "--shard-tar"] + extra)
    }

    private func records(_ url: URL) throws -> [[String: Any]] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// What `shard_tar_check.py` found in `tar` (it fails unless webdataset, PIL and tarfile agree
    /// with the records).
    private func check(_ tar: URL, _ records: URL, sourceLine: UInt = #line) throws -> [String: Any] {
        let script = E2EPaths.testsDir.appendingPathComponent("Support/shard_tar_check.py").path
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, tar.path, records.path],
                                  environment: ProcessInfo.processInfo.environment, timeout: 120)
        XCTAssertEqual(r.status, 0, "\(r)", line: sourceLine)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdoutText.utf8)) as? [String: Any], line: sourceLine)
    }

    private func padded(_ line: Int) -> String { String(format: "%09d", line) }

    func testEveryOkLineIsOneSampleOfImageAndRecord() throws {
        let names = ["tiny.jpg", "alpha.png", "small.webp"]
        var lines = (1...9).map { imageURL(names[$0 % 3], "v=\($0)") }
        lines.insert(server.url("/status/404"), at: 4)   // line 5: fails, no sample
        lines.append("not a url at all")                  // line 11: malformed, no sample
        let list = try writeList(lines)
        var okLines: [Int] = []
        for k in 1...2 {
            let r = try prefetch(list, "\(k)/2", ["--retry", "0"])
            let recs = try records(path(k, of: 2, "ndjson"))
            let ok = recs.filter { $0.string("status") == "ok" }.compactMap { $0.int("line") }
            let failed = recs.filter { $0.string("status") == "failed" }.compactMap { $0.int("line") }
            okLines += ok
            XCTAssertFalse(ok.isEmpty, "shard \(k) fetched some lines: \(r.stderr)")
            let found = try check(path(k, of: 2, "tar"), path(k, of: 2, "ndjson"))
            // In the order the lines finished (as the records are): each ok line once, its line padded to 9 digits.
            XCTAssertEqual((found["keys"] as? [String])?.sorted(), ok.sorted().map(padded))
            XCTAssertEqual(found["samples"] as? Int, ok.count)
            XCTAssertTrue(Set(failed.map(padded)).isDisjoint(with: Set(found["keys"] as? [String] ?? [])), "no sample for a failed line")
            let stats = try XCTUnwrap(try records(path(k, of: 2, "stats.json")).first)
            XCTAssertEqual(stats.string("tar"), String(format: "%05d-of-00002.tar", k), "the marker names its tar")

            // tar(1) lists the members: KEY.EXT then KEY.json, regular files of the images' sizes.
            let listing = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["tar", "-tvf", path(k, of: 2, "tar").path],
                                            environment: ProcessInfo.processInfo.environment, timeout: 60)
            XCTAssertEqual(listing.status, 0, "\(listing)")
            let rows = listing.stdoutText.split(separator: "\n")
            XCTAssertEqual(rows.count, 2 * ok.count, listing.stdoutText)
            XCTAssertTrue(rows.allSatisfy { $0.hasPrefix("-rw-r--r--") }, listing.stdoutText)
            for rec in recs where rec.string("status") == "ok" {
                let key = padded(rec.int("line") ?? 0)
                let ext = rec.string("format") == "jpeg" ? "jpg" : rec.string("format") ?? "?"
                XCTAssertTrue(rows.contains { $0.hasSuffix(" \(key).\(ext)") && $0.contains(" \(rec.int("bytes") ?? -1) ") },
                              "\(key).\(ext) of \(rec.int("bytes") ?? -1) bytes in:\n\(listing.stdoutText)")
                XCTAssertTrue(rows.contains { $0.hasSuffix(" \(key).json") }, listing.stdoutText)
            }
            let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path(k, of: 2, "tar").path)[.size] as? Int)
            XCTAssertEqual(size % 512, 0, "whole 512-byte blocks")
            let tail = try Data(contentsOf: path(k, of: 2, "tar")).suffix(1024)
            XCTAssertTrue(tail.allSatisfy { $0 == 0 }, "two zero blocks end it")
        }
        XCTAssertEqual(Set(okLines), Set([1, 2, 3, 4, 6, 7, 8, 9, 10]), "every ok line, once, across the shards")
        XCTAssertEqual(okLines.count, 9)
    }

    func testATarIsOneOfTheShardsOutputs() throws {
        let list = try writeList((1...4).map { imageURL("tiny.jpg", "v=\($0)") })
        assertExit(try imgfetch(["prefetch", "--cache-dir", cacheDir.path, list.path, "--shard", "1/1", "--shard-dir", shards.path]), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path(1, of: 1, "tar").path), "no tar without --shard-tar")
        try server.reset()
        // The marker of a run without the tar does not mark a run with it done.
        let withTar = try prefetch(list, "1/1")
        assertExit(withTar, 2)
        XCTAssertTrue(withTar.stderr.contains("--redo"), withTar.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path(1, of: 1, "tar").path))
        assertExit(try prefetch(list, "1/1", ["--redo"]), 0)
        XCTAssertEqual(try check(path(1, of: 1, "tar"), path(1, of: 1, "ndjson"))["samples"] as? Int, 4)
        // And a run with the tar is done for the next run with it: no request.
        try server.reset()
        let again = try prefetch(list, "1/1", cache: root.appendingPathComponent("fresh"))
        assertExit(again, 0)
        XCTAssertTrue(again.stderr.contains("already done"), again.stderr)
        XCTAssertEqual(try server.totalRequests(), 0)

        let alone = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, list.path, "--shard", "1/1", "--shard-tar"])
        assertExit(alone, 2)
        XCTAssertTrue(alone.stderr.contains("--shard-tar needs --shard-dir"), alone.stderr)
        XCTAssertEqual(try server.totalRequests(), 0)
    }

    /// `--key-column` names the samples; a hostile or repeated key makes its row a failure, never a member.
    func testKeyColumnNamesSamplesAndHostileKeysFailTheirRow() throws {
        let rows = ["url,id", "\(imageURL("tiny.jpg", "v=1")),cat_01", "\(imageURL("tiny.jpg", "v=2")),../../etc/x",
                    "\(imageURL("tiny.jpg", "v=3")),a.b", "\(imageURL("tiny.jpg", "v=4")),cat_01",
                    "\(imageURL("tiny.jpg", "v=5")),\(String(repeating: "k", count: 65))", "\(imageURL("tiny.jpg", "v=6")),dog-2"]
        let list = try writeList(rows, name: "list.csv")
        let r = try prefetch(list, "1/1", ["--key-column", "id"])
        assertExit(r, 1)
        let recs = try records(path(1, of: 1, "ndjson"))
        let found = try check(path(1, of: 1, "tar"), path(1, of: 1, "ndjson"))
        XCTAssertEqual((found["keys"] as? [String])?.sorted(), ["cat_01", "dog-2"], "\(found)")
        // A key that is not [A-Za-z0-9_-]{1,64} makes a malformed row (the list's reading); one that
        // another row has already makes its row fail here.
        XCTAssertEqual(try XCTUnwrap(try records(path(1, of: 1, "stats.json")).first).int("malformed"), 3, r.stderr)
        let failed = recs.filter { $0.string("status") == "failed" }
        XCTAssertEqual(failed.count, 1, "\(recs)")
        XCTAssertTrue(((failed.first?["error"] as? [String: Any])?["message"] as? String ?? "").contains("'cat_01'"), "\(failed)")
        XCTAssertTrue(failed.allSatisfy { ($0["error"] as? [String: Any])?["code"] as? String == "file_error" }, "\(failed)")
        XCTAssertTrue((found["members"] as? [String] ?? []).allSatisfy { !$0.contains("/") && !$0.contains("..") })
    }

    /// kill -9 at random moments: a tar under its final name is whole (every sample of its records,
    /// the end blocks), and a marker only for a shard whose tar is there.
    func testKilledWorkersNeverLeaveATruncatedTar() throws {
        let list = try writeList((1...30).map { server.url("/slow/tiny.jpg?seconds=0.05&v=\($0)") })
        var whole = 0
        for round in 1...10 {
            try? FileManager.default.removeItem(at: shards)
            let cache = root.appendingPathComponent("cache-\(round)")
            let process = try launch(["prefetch", "--cache-dir", cache.path, list.path, "--shard", "1/1", "--shard-dir", shards.path,
                                      "--shard-tar", "-j", "2", "--redo"])
            usleep(UInt32.random(in: 20_000...900_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let finals = ((try? FileManager.default.contentsOfDirectory(atPath: shards.path)) ?? []).filter { !$0.hasPrefix(".") }
            if finals.contains("00001-of-00001.stats.json") {
                XCTAssertTrue(finals.contains("00001-of-00001.tar"), "round \(round): a marker only after the tar")
                let stats = try XCTUnwrap(String(contentsOf: path(1, of: 1, "stats.json"), encoding: .utf8).data(using: .utf8))
                let ok = (try JSONSerialization.jsonObject(with: stats) as? [String: Any])?["ok"] as? Int
                XCTAssertEqual(ok, 30, "round \(round): a marker only for a finished shard")
            }
            if finals.contains("00001-of-00001.tar") {
                XCTAssertTrue(finals.contains("00001-of-00001.ndjson"), "round \(round): the records are renamed first")
                let found = try check(path(1, of: 1, "tar"), path(1, of: 1, "ndjson"))
                XCTAssertEqual(found["samples"] as? Int, 30, "round \(round): a tar under its final name is whole")
                let tail = try Data(contentsOf: path(1, of: 1, "tar")).suffix(1024)
                XCTAssertTrue(tail.count == 1024 && tail.allSatisfy { $0 == 0 }, "round \(round): with its end blocks")
                whole += 1
            }
        }
        // The kills fell while the tar was being written at least once (else the test saw nothing).
        XCTAssertLessThan(whole, 10, "every round finished before its kill: the list is too fast")
    }
}
