import Foundation
import XCTest

/// Transfers beyond `-j` (or `--per-host`) wait their turn without spending their `--timeout`:
/// what a user of a long list on a slow server checks is that nothing times out unsent.
final class PrefetchQueueTests: E2ETestCase {
    func assertWaitingTransfersDoNotTimeOut(_ options: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        // One at a time, 0.6 s each, with 1.5 s of timeout: the fourth is sent after 1.8 s of waiting.
        let urls = (0..<4).map { server.url("/slow/tiny.jpg?seconds=0.6&v=\($0)") }
        let list = try writeList(urls)
        let r = try imgfetch(["prefetch", "--no-robots", "--cache-dir", cacheDir.path, "--timeout", "1.5", "--json", "--no-progress"]
                             + options + [list.path])
        assertExit(r, 0, file: file, line: line)
        let failures = r.json.filter { $0["status"] as? String == "failed" }
        XCTAssertEqual(failures.count, 0, "no transfer timed out while waiting:\n\(r)", file: file, line: line)
        let times = try server.requestLog().map(\.t).sorted()
        XCTAssertEqual(times.count, 4, file: file, line: line)
        if times.count == 4 {
            XCTAssertGreaterThan(times[3] - times[0], 1.5, "they were sent one after another", file: file, line: line)
        }
    }

    func testTransfersWaitingForASlotKeepTheirWholeTimeout() throws {
        try assertWaitingTransfersDoNotTimeOut(["-j", "1"])
    }

    func testTransfersWaitingForTheirHostKeepTheirWholeTimeout() throws {
        try assertWaitingTransfersDoNotTimeOut(["-j", "8", "--per-host", "1"])
    }
}
