import Foundation
import XCTest

/// Issue 41, points 5 and 6: a shard's digest covers every option that changes its outputs (a
/// low-data run's marker does not mark the normal run done), one run of a shard at a time (the
/// `.lock` file: a second process fails with exit 2 naming the first's host and pid), and a marker
/// is trusted only while the records and tar beside it have the SHA-256 it holds.
final class ShardLockTests: E2ETestCase {
    private var shards: URL { work.appendingPathComponent("shards") }
    private func path(_ ext: String) -> URL { shards.appendingPathComponent("00001-of-00002." + ext) }

    private func prefetch(_ list: URL, _ extra: [String] = []) throws -> RunResult {
        try imgfetch(["prefetch", "--cache-dir", cacheDir.path, list.path, "--shard", "1/2", "--shard-dir", shards.path] + extra)
    }

    private func marker() throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: path("stats.json"))) as? [String: Any])
    }

    private func sha256(_ url: URL) -> String {
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["sha256sum", url.path],
                                  environment: ProcessInfo.processInfo.environment, timeout: 60)
        return String(r.stdoutText.prefix(64))
    }

    private func waitUntil(_ seconds: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }

    private var hostName: String {
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, 255)
        return String(cString: name)
    }

    /// Each option that changes what a line gives, given to the first run only: the second run's
    /// digest differs (a usage error naming --redo), never "already done".
    func testOptionsThatChangeOutputsAreInTheDigest() throws {
        let list = try writeList((1...6).map { imageURL("tiny.jpg", "v=\($0)") })
        for option in [["--low-data"], ["--partial-progressive"], ["--no-partial-progressive"], ["-u", "ann:secret"],
                       ["--placeholder", "blurhash"], ["--max-bytes", "1M"]] {
            try? FileManager.default.removeItem(at: shards)
            assertExit(try prefetch(list, ["-s", "8x8"] + option), 0)
            let normal = try prefetch(list, ["-s", "8x8"])
            assertExit(normal, 2)
            XCTAssertFalse(normal.stderr.contains("already done"), "\(option): \(normal.stderr)")
            XCTAssertTrue(normal.stderr.contains("--redo"), "\(option): \(normal.stderr)")
        }
        // The same options twice: done.
        try? FileManager.default.removeItem(at: shards)
        assertExit(try prefetch(list, ["-s", "8x8", "-u", "ann:secret"]), 0)
        XCTAssertTrue(try prefetch(list, ["-s", "8x8", "-u", "ann:secret"]).stderr.contains("already done"))
        XCTAssertFalse(try String(contentsOf: path("stats.json"), encoding: .utf8).contains("secret"))
    }

    /// A second process on a shard a first one is running fails at once (exit 2), naming the
    /// first's host and pid; the first holds the lock from its marker check to its marker write.
    func testASecondProcessOnOneShardFailsNamingTheFirst() throws {
        let slow = try writeList([server.url("/slow/tiny.jpg?seconds=60&v=1")] + (2...6).map { imageURL("tiny.jpg", "v=\($0)") })
        let first = try launch(["prefetch", "--cache-dir", cacheDir.path, slow.path, "--shard", "1/1", "--shard-dir", shards.path,
                                "--shard-tar", "-j", "1"])
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        let lock = shards.appendingPathComponent("00001-of-00001.lock")
        let holder = "\(hostName) \(first.processIdentifier) "
        XCTAssertTrue(waitUntil(60) { ((try? String(contentsOf: lock, encoding: .utf8)) ?? "").hasPrefix(holder) },
                      "the first run writes its host and pid in the lock file")
        let second = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, slow.path, "--shard", "1/1", "--shard-dir", shards.path,
                                   "--shard-tar"])
        assertExit(second, 2)
        XCTAssertTrue(second.stderr.contains("pid \(first.processIdentifier) on host \(hostName)"), second.stderr)
        XCTAssertTrue(first.isRunning, "the first run goes on")
        kill(first.processIdentifier, SIGTERM)
        first.waitUntilExit()
        XCTAssertFalse(FileManager.default.fileExists(atPath: shards.appendingPathComponent("00001-of-00001.stats.json").path))
        XCTAssertEqual((try? String(contentsOf: lock, encoding: .utf8)) ?? "", "", "no holder is named once the lock is released")
    }

    /// Two runs started together: one does the shard, the other fails naming it or (started after
    /// the first finished) finds it done; the marker's checksums are those of the records and tar.
    func testTwoRunsAtOnceLeaveAMarkerThatVouchesForItsFiles() throws {
        let list = try writeList((1...12).map { imageURL("tiny.jpg", "v=\($0)") })
        let args = ["prefetch", "--cache-dir", cacheDir.path, list.path, "--shard", "1/2", "--shard-dir", shards.path, "--shard-tar"]
        let errs = [file("a.err"), file("b.err")]
        for url in errs { FileManager.default.createFile(atPath: url.path, contents: nil) }
        let runs = try errs.map { try launch(args, stderr: $0) }
        runs.forEach { $0.waitUntilExit() }
        let statuses = runs.map(\.terminationStatus).sorted()
        let texts = errs.map { (try? String(contentsOf: $0, encoding: .utf8)) ?? "" }
        XCTAssertEqual(statuses.first, 0, "\(texts)")
        if statuses.last == 2 {
            XCTAssertTrue(texts.contains { $0.contains("is being run by another process") }, "\(texts)")
        } else {
            XCTAssertEqual(statuses.last, 0)
        }
        let stats = try marker()
        XCTAssertEqual(stats.string("records_sha256"), sha256(path("ndjson")))
        XCTAssertEqual(stats.string("tar_sha256"), sha256(path("tar")))
        XCTAssertTrue(try prefetch(list, ["--shard-tar"]).stderr.contains("already done"))
    }

    /// A marker whose files changed, or that holds no checksums (an older imgfetch's), marks
    /// nothing done: the shard runs again and the marker is replaced.
    func testAMarkerIsTrustedOnlyForItsOwnFiles() throws {
        let list = try writeList((1...12).map { imageURL("tiny.jpg", "v=\($0)") })
        assertExit(try prefetch(list, ["--shard-tar"]), 0)
        let records = try String(contentsOf: path("ndjson"), encoding: .utf8)
        let count = records.split(separator: "\n").count

        // Another run's records beside this marker (the same lines, another order or another run).
        try (records.split(separator: "\n").reversed().joined(separator: "\n") + "\n").write(to: path("ndjson"), atomically: true, encoding: .utf8)
        let changed = try prefetch(list, ["--shard-tar"])
        assertExit(changed, 0)
        XCTAssertFalse(changed.stderr.contains("already done"), changed.stderr)
        XCTAssertTrue(changed.stderr.contains("not trusted"), changed.stderr)
        XCTAssertEqual(try marker().string("records_sha256"), sha256(path("ndjson")), "the marker is written again")
        XCTAssertEqual(try String(contentsOf: path("ndjson"), encoding: .utf8).split(separator: "\n").count, count)

        // Another tar.
        try Data(repeating: 0, count: 1024).write(to: path("tar"))
        XCTAssertTrue(try prefetch(list, ["--shard-tar"]).stderr.contains("not trusted"))
        XCTAssertEqual(try marker().string("tar_sha256"), sha256(path("tar")))

        // Without checksums.
        let old = try String(contentsOf: path("stats.json"), encoding: .utf8)
            .replacingOccurrences(of: "\"records_sha256\"", with: "\"was_records\"")
        try old.write(to: path("stats.json"), atomically: true, encoding: .utf8)
        let unvouched = try prefetch(list, ["--shard-tar"])
        assertExit(unvouched, 0)
        XCTAssertTrue(unvouched.stderr.contains("older imgfetch"), unvouched.stderr)
        XCTAssertTrue(try prefetch(list, ["--shard-tar"]).stderr.contains("already done"))
    }
}
