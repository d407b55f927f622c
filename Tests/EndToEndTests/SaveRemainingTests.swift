import Foundation
import XCTest

/// `--save-remaining FILE`: every line of this run's share not delivered (failed, malformed,
/// cancelled, never started), as written, atomically, 0600; a rerun on FILE finishes the job.
final class SaveRemainingTests: E2ETestCase {
    private func records(_ url: URL) -> [[String: Any]] {
        ((try? String(contentsOf: url, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    func testAfterSIGINTAtFourSecondsTheRerunFinishesTheJob() throws {
        let lines = (1...300).map { server.url("/slow/tiny.jpg?seconds=0.1&v=\($0)") }
        let list = try writeList(lines)
        let saved = file("remaining.txt")
        let out = file("out.ndjson")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let process = try launch(["prefetch", "--cache-dir", cacheDir.path, "-j", "4", "--json", "--save-remaining", saved.path, list.path],
                                 stdout: out)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        Thread.sleep(forTimeInterval: 4)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        let delivered = Set(records(out).filter { $0.string("status") == "ok" }.compactMap { $0.string("source") })
        XCTAssertGreaterThan(delivered.count, 0)
        XCTAssertLessThan(delivered.count, 300, "interrupted before the end")
        let remaining = try String(contentsOf: saved, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(remaining, lines.filter { !delivered.contains($0) }, "every line not delivered, in list order, as written")
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: saved.path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o600)

        let rerun = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-j", "8", "--json", "--save-remaining", saved.path, saved.path],
                                 timeout: 60)
        assertExit(rerun, 0)
        let second = Set(rerun.json.filter { $0.string("status") == "ok" }.compactMap { $0.string("source") })
        XCTAssertEqual(delivered.union(second), Set(lines), "the two runs deliver every line")
        XCTAssertTrue(delivered.isDisjoint(with: second), "the rerun runs only the rest")
        XCTAssertEqual(try String(contentsOf: saved, encoding: .utf8), "", "nothing remains")
    }

    func testFailedAndMalformedLinesOfThisShardOnly() throws {
        let good = (1...10).map { imageURL("tiny.jpg", "v=\($0)") }
        let bad = (1...10).map { server.url("/status/404?v=\($0)") }
        let list = try writeList(["# a comment", ""] + good + bad + ["http://[bad"])
        let saved = file("remaining.txt")
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--retry", "0", "--json", "--shard", "1/2",
                              "--save-remaining", saved.path, list.path])
        assertExit(r, 1)
        let failed = Set(r.json.filter { $0.string("status") == "failed" }.compactMap { $0.string("source") })
        XCTAssertFalse(failed.isEmpty)
        let remaining = try String(contentsOf: saved, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(remaining, bad.filter { failed.contains($0) } + ["http://[bad"], "this shard's failed lines and the malformed one, never the other shard's")
    }

    func testFromStandardInputTheLinesReadAreSaved() throws {
        let saved = file("remaining.txt")
        let input = [imageURL("tiny.jpg"), server.url("/status/404"), "not a source at all ::"].joined(separator: "\n")
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--retry", "0", "--save-remaining", saved.path, "-"],
                             stdin: Data(input.utf8))
        assertExit(r, 1)
        XCTAssertEqual(try String(contentsOf: saved, encoding: .utf8), server.url("/status/404") + "\nnot a source at all ::\n")
    }
}
