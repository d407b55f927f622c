import Foundation
import XCTest

/// --limit-rate-total caps the whole run: every transfer together, from the first bytes (libcurl's
/// per-transfer --limit-rate is an average that lets a short transfer through at full speed).
final class TotalRateTests: E2ETestCase {
    private let mib = 1 << 20

    /// The one summary record of a prefetch --json.
    private func summary(_ r: RunResult) -> [String: Any] {
        r.json.first { $0["summary"] as? Bool == true } ?? [:]
    }

    func testOneBucketForEveryTransferOfAPrefetch() throws {
        // Four JPEGs of 6.3 MB (25 MB in all) at -j 4: over loopback, unlimited, well under a second.
        let urls = (1...4).map { imageURL("photo.jpg", "pad=6000000&v=\($0)") }
        let list = try writeList(urls)
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", "-j", "4", "--limit-rate-total", "8M", list.path],
                             timeout: 60)
        assertExit(r, 0)
        let bytes = summary(r).int("bytes_downloaded") ?? 0
        XCTAssertGreaterThan(bytes, 25_000_000, "\(r)")
        // 8 MiB/s for all four together, not for each (that would be about 0.8 s).
        let floor = Double(bytes) / Double(8 * mib) * 0.85
        XCTAssertGreaterThan(r.elapsed, floor, "25 MB under --limit-rate-total 8M took \(r.elapsed) s")
        // The four ran at once, sharing the bucket: each request was sent before any had finished.
        let starts = try server.requestLog().filter { $0.path.contains("pad=") }.map(\.t)
        XCTAssertEqual(starts.count, 4)
        XCTAssertLessThan((starts.max() ?? 0) - (starts.min() ?? 0), floor / 2, "the transfers overlapped: \(starts)")
    }

    func testALongGetIsCappedAndDeliversTheSameBytes() throws {
        let url = imageURL("photo.jpg", "pad=20000000")
        let plain = try get([url, "-o", file("plain.jpg").path, "--cache-dir", work.appendingPathComponent("c2").path])
        assertExit(plain, 0)
        let capped = try get([url, "-o", file("capped.jpg").path, "--limit-rate-total", "10M"], timeout: 60)
        assertExit(capped, 0)
        XCTAssertGreaterThan(capped.elapsed, 20_000_000 / Double(10 * mib) * 0.85, "20 MB at 10M: \(capped.elapsed) s")
        XCTAssertEqual(try Data(contentsOf: file("capped.jpg")), try Data(contentsOf: file("plain.jpg")))
    }

    func testTheRateIsValidated() throws {
        for value in ["0", "x", "-1"] {
            let r = try get([imageURL("tiny.jpg"), "--limit-rate-total", value])
            assertExit(r, 2)
            XCTAssertTrue(r.stderr.contains("--limit-rate-total"), "\(r)")
        }
    }
}
