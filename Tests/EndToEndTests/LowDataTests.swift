import Foundation
import XCTest

/// The rest of Kingfisher's low-data semantics (testLowDataModeSource and failCurrentSource), the
/// exhausted-sources error, `--low-data=auto` with a faked NetworkManager, and stale-if-error.
final class LowDataTests: E2ETestCase {
    func testLocalFileFallback() throws {
        let original = imageURL("photo.jpg")
        let fallback = E2EPaths.fixturesDir.appendingPathComponent("tiny.jpg").path
        let r = try get([original, "--low-data", "--low-data-source", fallback, "--json", "-o", file("o.jpg").path])
        assertExit(r, 0)
        let record = singleRecord(r)
        XCTAssertEqual(record["low_data"] as? Bool, true, "\(record)")
        XCTAssertEqual(record.string("source"), fallback, "\(record)")
        XCTAssertEqual(record.string("original_source"), original, "\(record)")
        XCTAssertEqual(try server.stats().total, 0, "neither the original nor anything else was requested")
        assertImageFile(file("o.jpg"), .jpeg, width: 100, height: 67)
    }

    func testConstrainedFailureIsNeverRetried() throws {
        let original = imageURL("photo.jpg")
        let fallback = imageURL("tiny.jpg")
        let r = try get([original, "--low-data", "--low-data-source", fallback, "--retry", "3", "--retry-delay", "0.1",
                         "--json", "-o", file("o.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r).int("attempts"), 1, "only the fallback's one request counts")
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 0)
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg")), 1)
    }

    func testFallbackIsCachedUnderItsOwnKey() throws {
        let original = imageURL("photo.jpg")
        let fallback = imageURL("tiny.jpg")
        let args = [original, "-s", "50", "--low-data", "--low-data-source", fallback, "--json", "-o", file("o.jpg").path]
        assertExit(try get(args), 0)
        let before = try server.stats().total
        let second = try get(args)
        assertExit(second, 0)
        XCTAssertEqual(try server.stats().total, before, "a second identical run makes no request")
        let record = singleRecord(second)
        XCTAssertEqual(record.string("cache"), "hit", "\(record)")
        XCTAssertEqual(record["low_data"] as? Bool, true, "\(record)")
        let listed = try imgfetch(["cache", "ls", "--json", "--cache-dir", cacheDir.path])
        let sources = Set(listed.json.compactMap { $0["source"] as? String })
        XCTAssertTrue(sources.contains(fallback), "\(sources)")
        XCTAssertFalse(sources.contains(original), "the original was never loaded, so it is not cached: \(sources)")
    }

    func testFailedFallbackMovesOnToTheAlternatives() throws {
        let original = imageURL("photo.jpg")
        let fallback = server.url("/status/404")
        let alt = imageURL("small.gif")
        let r = try get([original, "--low-data", "--low-data-source", fallback, "--alt", alt, "--json", "-o", file("o.gif").path])
        assertExit(r, 0)
        let record = singleRecord(r)
        XCTAssertEqual(record.string("source"), alt, "\(record)")
        XCTAssertEqual(record["low_data"] as? Bool, false, "the fallback failed; the alternative is not the low-data image")
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 0)
        XCTAssertEqual(try server.requestCount("/status/404"), 1, "the fallback is taken exactly once")
        XCTAssertEqual(try server.requestCount(imagePath("small.gif")), 1)
    }

    func testAllSourcesFailingListsEachFailureInOrder() throws {
        let original = imageURL("photo.jpg")
        let fallback = server.url("/status/404")
        let alt = server.url("/status/410")
        let args = [original, "--low-data", "--low-data-source", fallback, "--alt", alt, "-o", file("o.jpg").path]
        let r = try get(args + ["--json"])
        assertExit(r, 5)
        let record = singleRecord(r)
        XCTAssertEqual(errorCode(record), "sources_exhausted", "\(record)")
        let failures = ((record["error"] as? [String: Any])?["failures"] as? [[String: Any]]) ?? []
        XCTAssertEqual(failures.map { $0["source"] as? String }, [original, fallback, alt], "\(failures)")
        XCTAssertEqual(failures.map { $0["code"] as? String }, ["constrained", "http_status", "http_status"], "\(failures)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("o.jpg").path), "no output on failure")

        let plain = try get(args)
        assertExit(plain, 5)
        assertOneErrorLine(plain, containing: original)
        XCTAssertTrue(plain.stderr.contains("404") && plain.stderr.contains("410"), plain.stderr)
    }

    // MARK: --low-data=auto, with NetworkManager faked by a `busctl` on PATH

    func fakeBusctl(answer: String?) throws -> [String: String] {
        let bin = root.appendingPathComponent("fakebin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        if let answer {
            let script = bin.appendingPathComponent("busctl")
            try "#!/bin/sh\necho '\(answer)'\n".write(to: script, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        }
        return ["PATH": bin.path + ":/usr/bin:/bin"]
    }

    func testAutoFollowsAMeteredConnection() throws {
        let cases: [(String?, Bool)] = [("u 1", true), ("u 3", true), ("u 2", false), ("u 4", false), (nil, false)]
        for (index, (answer, metered)) in cases.enumerated() {
            let env = try fakeBusctl(answer: answer)
            let r = try get([imageURL("photo.jpg", "v=\(index)"), "--low-data=auto", "--low-data-source", imageURL("tiny.jpg"),
                             "--json", "-o", file("o.jpg").path], env: env)
            assertExit(r, 0)
            XCTAssertEqual(singleRecord(r)["low_data"] as? Bool, metered, "busctl says \(answer ?? "nothing (absent)")")
        }
    }

    func testAutoFromTheEnvironment() throws {
        let env = try fakeBusctl(answer: "u 1").merging(["IMGFETCH_LOW_DATA": "auto"]) { $1 }
        let r = try get([imageURL("photo.jpg"), "--low-data-source", imageURL("tiny.jpg"), "--json", "-o", file("o.jpg").path], env: env)
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r)["low_data"] as? Bool, true)
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 0)
    }

    // MARK: stale-if-error

    func testUnreachableServerServesAStaleEntryWithAWarning() throws {
        let url = imageURL("photo.jpg", "cc=max-age=1")
        assertExit(try get([url, "-s", "100", "-o", file("a.jpg").path]), 0)
        Thread.sleep(forTimeInterval: 1.2)
        server.stop()
        for json in [true, false] {
            let r = try get([url, "-s", "100", "-o", file("b.jpg").path] + (json ? ["--json"] : []))
            assertExit(r, 0)
            XCTAssertTrue(r.stderr.contains("warning") && r.stderr.contains(url), r.stderr)
            if json { XCTAssertEqual(singleRecord(r).string("cache"), "stale") }
            assertImageFile(file("b.jpg"), .jpeg, width: 100, height: 67)
        }
    }

    func testUnreachableServerWithNothingCachedNamesTheSource() throws {
        let url = imageURL("photo.jpg")
        server.stop()
        let r = try get([url, "-o", file("b.jpg").path])
        assertExit(r, 6)
        assertOneErrorLine(r, containing: url)
    }
}
