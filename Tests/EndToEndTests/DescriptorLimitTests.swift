import Foundation
import XCTest

/// `prefetch -j 256` with an http:// remote tier under a descriptor limit of 1024 (issue 20 M3):
/// every image is delivered. `ulimit -n 1024` lowers the hard limit too, so the direct client's
/// descriptors must stay bounded by `-j`; `ulimit -Sn 1024` leaves the hard limit higher, and the
/// soft limit is raised to it at start.
final class DescriptorLimitTests: E2ETestCase {
    static let items = Int(ProcessInfo.processInfo.environment["IMGFETCH_FD_TEST_ITEMS"] ?? "") ?? 4500
    /// The limit set (`IMGFETCH_FD_TEST_LIMIT`, default 1024), to try others by hand.
    static let limit = Int(ProcessInfo.processInfo.environment["IMGFETCH_FD_TEST_LIMIT"] ?? "") ?? 1024

    private func prefetch(ulimit: String, cache: String, tier: String, list: URL) throws -> RunResult {
        guard let binary = E2EPaths.binary else { throw Imgfetch.NotBuilt() }
        var env = Imgfetch.baseEnvironment(home: home)
        env["TMPDIR"] = root.path
        let script = "ulimit \(ulimit) \(Self.limit) || exit 99; exec \"$0\" \"$@\""
        let r = ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"),
                                  ["-c", script, binary.path, "prefetch", "--cache-dir", work.appendingPathComponent(cache).path,
                                   "--remote-cache", tier, "-j", "256", "--no-progress", "--json", list.path],
                                  environment: env, currentDirectory: work, timeout: 120)
        if r.status == 99 { throw XCTSkip("ulimit \(ulimit) \(Self.limit) is not allowed here") }
        return r
    }

    private func check(_ r: RunResult, _ what: String) {
        assertExit(r, 0)
        let summary = r.stderr.split(separator: "\n").filter { $0.contains(" ok (") }
        XCTAssertTrue(r.stderr.contains("\(Self.items) ok ("), "\(what): \(summary) \(r.stderr.suffix(2000))")
        let failures = r.stdoutText.split(separator: "\n").filter { $0.contains("\"error\"") }
        XCTAssertEqual(failures.count, 0, "\(what): \(failures.prefix(3))")
    }

    private func list(_ tag: String) throws -> URL {
        try writeList((0..<Self.items).map { imageURL("tiny.jpg", "cc=max-age%3D600&\(tag)=\($0)") }, name: "\(tag).txt")
    }

    func testEveryImageWithATierUnderAHardLimitOf1024() throws {
        let store = try NginxDAVServer(workerConnections: 4096)
        let l = try list("hard")
        check(try prefetch(ulimit: "-n", cache: "a", tier: store.url("/t/"), list: l), "misses, ulimit -n")
        // The same list from the tier alone: every item two direct GETs, no libcurl for the reads.
        check(try prefetch(ulimit: "-n", cache: "b", tier: store.url("/t/"), list: l), "remote hits, ulimit -n")
    }

    func testEveryImageWithATierUnderASoftLimitOf1024() throws {
        let store = try NginxDAVServer(workerConnections: 4096)
        let l = try list("soft")
        check(try prefetch(ulimit: "-Sn", cache: "a", tier: store.url("/t/"), list: l), "misses, ulimit -Sn")
        check(try prefetch(ulimit: "-Sn", cache: "b", tier: store.url("/t/"), list: l), "remote hits, ulimit -Sn")
    }
}
