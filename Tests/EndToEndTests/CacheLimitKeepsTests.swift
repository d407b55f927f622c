import Foundation
import XCTest

/// A size limit lowered under a full cache, as a user does it: `get`s one at a time in a shell loop
/// with `--cache-size-limit` at 95% of the cache. The limit keeps what it can: the first store
/// deletes about the excess, least recently used first; every later store deletes about its own
/// footprint; the cache ends within the limit and holds most of it.
final class CacheLimitKeepsTests: E2ETestCase {
    /// `cache stats --json`'s footprint as the limit counts it (bytes + 512 per entry).
    private func footprint() throws -> Int {
        let r = try imgfetch(["cache", "stats", "--json", "--cache-dir", cacheDir.path])
        assertExit(r, 0)
        let s = singleRecord(r)
        return (s.int("bytes") ?? .max / 2) + 512 * (s.int("entries") ?? 0)
    }

    /// `n` valid entries (the bench's generator, the template of one real entry), each image's last
    /// access a second apart (entry i used i seconds after entry 0). Returns the keys, oldest first.
    private func fill(_ n: Int) throws -> [String] {
        let templateCache = root.appendingPathComponent("template-cache")
        assertExit(try imgfetch(["get", imageURL("photo.jpg"), "-s", "24", "--no-keep-original", "-o", file("t.jpg").path,
                                 "--cache-dir", templateCache.path]), 0)
        let script = E2EPaths.testsDir.deletingLastPathComponent().appendingPathComponent("scripts/bench/fake-cache.py")
        let code = """
        import glob, hashlib, os, subprocess, sys, time
        template = glob.glob(sys.argv[1] + "/v1/*/*.meta")[0]
        subprocess.check_call([sys.executable, sys.argv[2], sys.argv[3], sys.argv[4], template])
        os.remove(sys.argv[3] + "/STAMP")
        base = time.time() - 2 * int(sys.argv[4]) - 3600
        for i in range(int(sys.argv[4])):
            key = hashlib.sha256(b"imgfetch-bench-fake-%d" % i).hexdigest()
            os.utime("%s/v1/%s/%s.jpg" % (sys.argv[3], key[:2], key), (base + i, base + i))
            print(key)
        """
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"),
                                  ["python3", "-c", code, templateCache.path, script.path, cacheDir.path, String(n)],
                                  environment: ProcessInfo.processInfo.environment, timeout: 120)
        XCTAssertEqual(r.status, 0, "\(r)")
        try FileManager.default.copyItem(at: templateCache.appendingPathComponent("CACHEDIR.TAG"),
                                         to: cacheDir.appendingPathComponent("CACHEDIR.TAG"))
        return r.stdoutText.split(separator: "\n").map(String.init)
    }

    func testALoweredLimitDeletesAboutTheExcessLeastRecentlyUsedFirstAndKeepsTheRest() throws {
        let keys = try fill(3_000)
        XCTAssertEqual(keys.count, 3_000)
        let before = try footprint()
        let perEntry = before / keys.count
        let limit = before * 95 / 100
        // The first get over the lowered limit: it deletes the excess and a small batch at most.
        let first = try get(["--cache-size-limit", String(limit), "-s", "32", "-o", file("0.jpg").path,
                             imageURL("tiny.jpg", "v=0")])
        assertExit(first, 0)
        let afterFirst = try footprint()
        XCTAssertLessThanOrEqual(afterFirst, limit, "the hard limit holds after the first store")
        XCTAssertGreaterThanOrEqual(afterFirst, limit - max(limit / 100, 64 * perEntry),
                                    "the first store deleted about the excess, not half the cache (\(before) bytes before)")
        // Then 20 more, one at a time, as a shell loop runs them; each stores an original kept
        // beside its thumbnail (a by-product) and the thumbnail.
        for i in 1...20 {
            assertExit(try get(["--cache-size-limit", String(limit), "-s", "32", "-o", file("\(i).jpg").path,
                                imageURL("tiny.jpg", "v=\(i)")]), 0)
        }
        let after = try footprint()
        XCTAssertLessThanOrEqual(after, limit, "the hard limit holds")
        XCTAssertGreaterThanOrEqual(after, limit * 85 / 100, "at least 85% of the limit is still cached")
        // What went was the least recently used: the 85% most recently used entries are all there.
        let listed = try imgfetch(["cache", "ls", "--json", "--cache-dir", cacheDir.path])
        assertExit(listed, 0)
        let present = Set(listed.json.compactMap { $0.string("key") })
        let newest = keys.suffix(keys.count * 85 / 100)
        let lost = newest.filter { !present.contains($0) }
        XCTAssertEqual(lost.count, 0, "recently used entries evicted while older ones stayed: \(lost.prefix(5))")
        // The thumbnails asked for last are there, each a hit.
        let again = try get(["--json", "--cache-size-limit", String(limit), "-s", "32", "-o", file("again.jpg").path,
                             imageURL("tiny.jpg", "v=20")])
        XCTAssertEqual(singleRecord(again).string("cache"), "hit", "\(again.stdoutText)")
    }
}
