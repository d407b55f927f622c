import Foundation
import XCTest

/// `--shard-dir DIR`: each shard's records and, once its last line is done, its marker; a rerun of
/// a done shard fetches and looks up nothing; a killed worker leaves no marker and no half file.
final class ShardDirTests: E2ETestCase {
    private var list: URL!
    private var shards: URL { work.appendingPathComponent("shards") }

    override func setUpWithError() throws {
        try super.setUpWithError()
        list = try writeList((1...12).map { imageURL("tiny.jpg", "v=\($0)") })
    }

    private func prefetch(_ shard: String, _ extra: [String] = [], cache: URL? = nil) throws -> RunResult {
        try imgfetch(["prefetch", "--cache-dir", (cache ?? cacheDir).path, list.path, "--shard", shard,
                      "--shard-dir", shards.path] + extra)
    }

    private func lines(_ url: URL) throws -> [[String: Any]] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    private func marker(_ k: Int, of n: Int) -> URL { shards.appendingPathComponent(String(format: "%05d-of-%05d.stats.json", k, n)) }
    private func records(_ k: Int, of n: Int) -> URL { shards.appendingPathComponent(String(format: "%05d-of-%05d.ndjson", k, n)) }

    func testEachShardWritesItsRecordsThenItsMarkerAndARerunSendsNothing() throws {
        var sources: [String] = []
        for k in 1...2 {
            let r = try prefetch("\(k)/2")
            assertExit(r, 0)
            let recs = try lines(records(k, of: 2))
            XCTAssertTrue(recs.allSatisfy { $0.string("status") == "ok" && $0.int("line") != nil }, "the --json records, with their line")
            sources += recs.compactMap { $0.string("source") }
            let stats = try XCTUnwrap(try lines(marker(k, of: 2)).first)
            XCTAssertEqual(stats.string("shard"), "\(k)/2")
            XCTAssertEqual(stats.int("total"), recs.count)
            XCTAssertEqual(stats.int("ok"), recs.count)
            XCTAssertEqual(stats.int("failed"), 0)
            XCTAssertNotNil(stats.string("started"))
            XCTAssertNotNil(stats.string("finished"))
            XCTAssertEqual(stats.string("digest")?.count, 64)
            XCTAssertNotNil(stats["failures"] as? [String: Any])
        }
        XCTAssertEqual(Set(sources).count, 12, "the two shards cover the list, each line once")
        XCTAssertEqual(sources.count, 12)

        try server.reset()
        let fresh = root.appendingPathComponent("other-cache")
        // A mere -j or --rate or progress is not in the digest.
        let again = try prefetch("1/2", ["-j", "3", "--rate", "500", "--no-progress"], cache: fresh)
        assertExit(again, 0)
        XCTAssertTrue(again.stderr.contains("shard 1/2 already done (\(marker(1, of: 2).path))"), again.stderr)
        XCTAssertEqual(try server.totalRequests(), 0, "a done shard sends no request")
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh.path), "nor opens the cache")
    }

    func testAnotherDigestIsAUsageErrorAndRedoRunsAgain() throws {
        assertExit(try prefetch("1/3"), 0)
        let before = try XCTUnwrap(try lines(marker(1, of: 3)).first?.string("digest"))
        try server.reset()
        let other = try prefetch("1/3", ["-s", "4x4"])
        assertExit(other, 2)
        XCTAssertTrue(other.stderr.contains(before), "names the marker's digest: \(other.stderr)")
        XCTAssertTrue(other.stderr.contains("--redo"), other.stderr)
        XCTAssertEqual(try server.totalRequests(), 0)
        // What the politeness options skip is in it too, off their defaults only: --no-robots and
        // --no-honor-opt-outs are other digests; the default --usage said out loud is not.
        assertExit(try prefetch("1/3", ["--no-robots"]), 2)
        assertExit(try prefetch("1/3", ["--no-honor-opt-outs"]), 2)
        assertExit(try prefetch("1/3", ["--usage", "train-genai"]), 2)
        let same = try prefetch("1/3", ["--usage", "train-ai", "--robots"])
        assertExit(same, 0)
        XCTAssertTrue(same.stderr.contains("already done"), same.stderr)
        XCTAssertEqual(try server.totalRequests(), 0)
        // Another list is another digest too.
        try String(contentsOf: list, encoding: .utf8).appending(imageURL("tiny.jpg", "v=99") + "\n").write(to: list, atomically: true, encoding: .utf8)
        assertExit(try prefetch("1/3"), 2)

        let redo = try prefetch("1/3", ["-s", "4x4", "--redo"])
        assertExit(redo, 0)
        let after = try XCTUnwrap(try lines(marker(1, of: 3)).first?.string("digest"))
        XCTAssertNotEqual(after, before, "--redo replaces the marker")
        XCTAssertTrue(try lines(records(1, of: 3)).allSatisfy { $0.int("width") ?? 99 <= 4 }, "and the records")
    }

    func testFailuresAreCountedByCode() throws {
        list = try writeList([imageURL("tiny.jpg"), server.url("/status/404"), server.url("/nothing-here.jpg")])
        let r = try prefetch("1/1", ["--retry", "0"])
        assertExit(r, 1)
        let stats = try XCTUnwrap(try lines(marker(1, of: 1)).first)
        XCTAssertEqual(stats.int("ok"), 1)
        XCTAssertEqual(stats.int("failed"), 2)
        let byCode = try XCTUnwrap((stats["failures"] as? [String: Any])?["by_code"] as? [String: Any])
        XCTAssertEqual(byCode["http_status"] as? Int, 2, "\(stats)")
        XCTAssertEqual(try lines(records(1, of: 1)).filter { $0.string("status") == "failed" }.count, 2)
    }

    func testUsageErrors() throws {
        let noShard = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, list.path, "--shard-dir", shards.path])
        assertExit(noShard, 2)
        XCTAssertTrue(noShard.stderr.contains("--shard-dir needs --shard"), noShard.stderr)
        let stdin = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-", "--shard", "1/2", "--shard-dir", shards.path],
                                 stdin: Data(imageURL("tiny.jpg").utf8))
        assertExit(stdin, 2)
        XCTAssertTrue(stdin.stderr.contains("standard input"), stdin.stderr)
        let redo = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, list.path, "--redo"])
        assertExit(redo, 2)
        XCTAssertEqual(try server.totalRequests(), 0)
        // A foreign file under the marker's name is not taken for a marker.
        try FileManager.default.createDirectory(at: shards, withIntermediateDirectories: true)
        try Data("{\"digest\":\"\u{1B}[2J\"}".utf8).write(to: marker(1, of: 2))
        let foreign = try prefetch("1/2")
        assertExit(foreign, 2)
        XCTAssertFalse(foreign.stderr.contains("\u{1B}"))
    }

    /// A signal that comes once every line is done and the marker is written changes nothing: the
    /// run exits 0 and its summary is not an interrupted one (a marker only beside a run that exits
    /// 0; `make faults` found one beside an exit of 129). The summary's write is held, stderr being a
    /// full pipe, from before the signal until the signal has been taken (no longer pending).
    func testASignalAfterTheMarkerLeavesTheRunDone() throws {
        guard let binary = E2EPaths.binary else { throw Imgfetch.NotBuilt() }
        list = try writeList((1...3).map { imageURL("tiny.jpg", "v=hup\($0)") })
        let pipe = Pipe()
        let writer = pipe.fileHandleForWriting.fileDescriptor
        _ = fcntl(writer, 1031 /* F_SETPIPE_SZ */, 4096)
        let flags = fcntl(writer, F_GETFL)
        _ = fcntl(writer, F_SETFL, flags | O_NONBLOCK)
        let filler = [UInt8](repeating: 0x2E, count: 512)
        var held = 0
        while case let n = write(writer, filler, filler.count), n > 0 { held += n }
        _ = fcntl(writer, F_SETFL, flags)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["prefetch", "--cache-dir", cacheDir.path, list.path, "--shard", "1/1", "--shard-dir", shards.path]
        process.environment = Imgfetch.baseEnvironment(home: home)
        process.currentDirectoryURL = work
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = pipe.fileHandleForWriting
        try process.run()
        try pipe.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: marker(1, of: 1).path) && Date() < deadline { usleep(5_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker(1, of: 1).path), "the shard is done")
        kill(process.processIdentifier, SIGHUP)
        while Date() < deadline, let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              status.split(separator: "\n").contains(where: { ($0.hasPrefix("ShdPnd:") || $0.hasPrefix("SigPnd:")) && (UInt64($0.split(separator: "\t").last ?? "", radix: 16) ?? 0) & 1 != 0 }) {
            usleep(2_000)
        }
        let stderr = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile().dropFirst(held), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertFalse(stderr.contains("interrupted"), stderr)
        XCTAssertEqual(try lines(records(1, of: 1)).count, 3)
    }

    /// kill -9 at random moments: a marker only for a shard whose records are all there, and no
    /// file under a final name that is not whole.
    func testKilledWorkersLeaveNoMarkerForAnUnfinishedShard() throws {
        list = try writeList((1...30).map { server.url("/slow/tiny.jpg?seconds=0.05&v=\($0)") })
        for round in 1...10 {
            try? FileManager.default.removeItem(at: shards)
            let cache = root.appendingPathComponent("cache-\(round)")
            let process = try launch(["prefetch", "--cache-dir", cache.path, list.path, "--shard", "1/1", "--shard-dir", shards.path,
                                      "-j", "2", "--redo"])
            usleep(UInt32.random(in: 20_000...600_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let names = (try? FileManager.default.contentsOfDirectory(atPath: shards.path)) ?? []
            let finals = names.filter { !$0.hasPrefix(".") }
            if finals.contains("00001-of-00001.stats.json") {
                let total = try XCTUnwrap(try lines(marker(1, of: 1)).first?.int("total"))
                XCTAssertEqual(try lines(records(1, of: 1)).count, total, "round \(round): a marker only after every record")
            } else if finals.contains("00001-of-00001.ndjson") {
                XCTAssertEqual(try lines(records(1, of: 1)).count, 30, "round \(round): records under their final name are whole")
            }
        }
    }
}
