import Foundation
import XCTest

/// Bytes handed out are whole: a truncated or corrupt image fails on every path (the JPEG path,
/// libvips' thumbnail, an original handed out as it is), from a file or over HTTP, on every run
/// (libvips 8.14's own checks race with its threads), and `cache verify` finds one planted in the cache.
final class WholeBytesTests: E2ETestCase {
    static let runs = 20

    /// A damaged copy of a fixture: its first `percent` %, closed with a JPEG end marker when `eoi`.
    struct Damage {
        var fixture: String
        var percent: Int
        var eoi: Bool

        var query: String { "cut=\(percent)" + (eoi ? "&eoi=1" : "") }
        var name: String { "\(fixture) cut to \(percent)%\(eoi ? " + FF D9" : "")" }
        func bytes() throws -> Data {
            let whole = try E2EPaths.fixtureData(fixture)
            return whole.prefix(whole.count * percent / 100) + (eoi ? Data([0xFF, 0xD9]) : Data())
        }
    }

    static let halfClosed = Damage(fixture: "photo.jpg", percent: 50, eoi: true)
    static let lastCut = Damage(fixture: "photo.jpg", percent: 95, eoi: false)

    /// Runs `get SOURCE ARGS --json` `runs` times (four at once, each with its own cache) and asserts
    /// every run failed with `invalid_image`, wrote no output and cached nothing.
    private func assertFailsEveryRun(_ source: String, _ args: [String], _ label: String, runs: Int,
                                     file: StaticString = #filePath, line: UInt = #line) throws {
        let results = UnsafeResults(count: runs)
        let root = self.file("runs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let home = self.home!, work = self.work!
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for i in stride(from: worker, to: runs, by: 4) {
                let cache = root.appendingPathComponent("cache-\(i)").path
                let out = root.appendingPathComponent("out-\(i)").path
                results.set(i, try? Imgfetch.run(["get", "--cache-dir", cache, source, "--json", "-o", out] + args,
                                                 home: home, currentDirectory: work, timeout: 60))
            }
        }
        var accepted = 0
        for i in 0..<runs {
            guard let r = results.get(i) else { XCTFail("\(label): run \(i) did not start", file: file, line: line); continue }
            if r.status != 7 || errorCode(singleRecord(r, file: file, line: line)) != "invalid_image" {
                accepted += 1
                if accepted == 1 { XCTFail("\(label): run \(i) was not refused as invalid:\n\(r)", file: file, line: line) }
            }
            let out = root.appendingPathComponent("out-\(i)").path
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "\(label): run \(i) wrote \(out)", file: file, line: line)
            let cached = regularFiles(under: root.appendingPathComponent("cache-\(i)"))
                .filter { ["jpg", "png", "webp", "meta"].contains($0.pathExtension) }
            XCTAssertTrue(cached.isEmpty, "\(label): run \(i) cached \(cached.map(\.path))", file: file, line: line)
        }
        XCTAssertEqual(accepted, 0, "\(label): accepted in \(accepted) of \(runs) runs", file: file, line: line)
    }

    private func assertFailsEverywhere(_ damage: Damage, modes: [[String]], runs: Int = WholeBytesTests.runs) throws {
        let path = file(damage.name.replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "%", with: "")
                        + "." + (damage.fixture as NSString).pathExtension)
        try damage.bytes().write(to: path)
        for args in modes {
            let how = args.isEmpty ? "as it is" : args.joined(separator: " ")
            try assertFailsEveryRun(path.path, args, "\(damage.name), file, \(how)", runs: runs)
            try assertFailsEveryRun(imageURL(damage.fixture, damage.query), args, "\(damage.name), HTTP, \(how)", runs: runs)
        }
    }

    func testAJpegCutInHalfAndClosedWithAnEndMarkerFailsEveryRun() throws {
        try assertFailsEverywhere(Self.halfClosed, modes: [["-s", "50"], [], ["-s", "50", "-f", "webp"]])
    }

    func testAJpegWithItsLastFivePercentCutFailsEveryRun() throws {
        try assertFailsEverywhere(Self.lastCut, modes: [["-s", "50"], [], ["-s", "50", "-f", "webp"]])
    }

    func testAJpegLibvipsProcessesFailsWhenCut() throws {
        // An ICC profile sends a JPEG thumbnail to libvips: the same strict check comes first.
        try assertFailsEverywhere(Damage(fixture: "icc.jpg", percent: 60, eoi: true), modes: [["-s", "50"]], runs: 8)
    }

    func testTruncatedPngAndWebpFailEveryRun() throws {
        // libvips decides these alone (no race known there): fewer runs.
        try assertFailsEverywhere(Damage(fixture: "alpha.png", percent: 95, eoi: false), modes: [["-s", "50"], []], runs: 8)
        try assertFailsEverywhere(Damage(fixture: "small.webp", percent: 95, eoi: false), modes: [["-s", "50"], []], runs: 8)
    }

    func testTheWholeImagesStillPass() throws {
        // The control: the same fixtures whole, on the same paths.
        for name in ["photo.jpg", "icc.jpg", "alpha.png", "small.webp"] {
            for args in [["-s", "50"], []] {
                let r = try get([imageURL(name), "--json", "-o", file("ok-\(name)").path] + args)
                assertExit(r, 0)
            }
        }
    }

    // MARK: - cache verify

    func testCacheVerifyFlagsAPlantedTruncatedEntryWhoseChecksumMatches() throws {
        let url = imageURL("photo.jpg")
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        let ls = try imgfetch(["cache", "ls", "--json", "--cache-dir", cacheDir.path])
        guard let record = ls.json.first, let path = record.string("path") else { return XCTFail("nothing cached:\n\(ls)") }
        assertExit(try imgfetch(["cache", "verify", "--cache-dir", cacheDir.path]), 0)

        // Plant the half-and-FF-D9 JPEG with a matching size and checksum: only a decode can tell.
        let planted = try Self.halfClosed.bytes()
        try planted.write(to: URL(fileURLWithPath: path))
        let metaURL = URL(fileURLWithPath: (path as NSString).deletingPathExtension + ".meta")
        let meta = try String(contentsOf: metaURL, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map { line in
            if line.hasPrefix("bytes\t") { return "bytes\t\(planted.count)" }
            if line.hasPrefix("checksum\t") { return "checksum\t\(XXH64.string([UInt8](planted)))" }
            return String(line)
        }.joined(separator: "\n")
        try meta.write(to: metaURL, atomically: false, encoding: .utf8)
        // The checksum matches: a hit serves it (verify is where decoding is checked).
        let hit = try get([url, "--json", "-o", file("b.jpg").path])
        XCTAssertEqual(singleRecord(hit).string("cache"), "hit", "the planted entry is consistent:\n\(hit)")

        let verify = try imgfetch(["cache", "verify", "--cache-dir", cacheDir.path])
        assertExit(verify, 1)
        XCTAssertTrue(verify.stdoutText.contains(url), "names the entry's source:\n\(verify)")
        XCTAssertTrue(verify.stdoutText.contains("premature end of data segment"), "says why:\n\(verify)")
        assertExit(try imgfetch(["cache", "verify", "--repair", "--cache-dir", cacheDir.path]), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "repair removed the planted file")
    }
}

/// Results of concurrent runs, each slot written by one worker.
private final class UnsafeResults: @unchecked Sendable {
    // @unchecked Sendable: every slot is written by exactly one worker and read after all joined,
    // under the lock anyway.
    private var results: [RunResult?]
    private let lock = NSLock()
    init(count: Int) { results = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: RunResult?) { lock.lock(); results[i] = r; lock.unlock() }
    func get(_ i: Int) -> RunResult? { lock.lock(); defer { lock.unlock() }; return results[i] }
}
