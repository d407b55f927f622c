import Foundation
import XCTest
@testable import imgfetch

/// The background `cache scan` that `get` starts inherits no descriptor of `get`'s: the child here
/// lists its own /proc/PID/fd while this process holds one open without close-on-exec.
final class BackgroundScanTests: XCTestCase {
    func testTheSpawnedChildHasOnlyItsStandardStreams() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scan-fd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let leaked = open(dir.path, O_RDONLY)   // inheritable, as a library's descriptor may be
        XCTAssertGreaterThan(leaked, 2)
        defer { close(leaked) }
        let out = dir.appendingPathComponent("fd").path
        BackgroundScan.spawn(["/bin/sh", "-c", "ls -1 /proc/$$/fd > \(out).tmp && mv \(out).tmp \(out)"])
        var listing: String?
        for _ in 0..<400 where listing == nil {   // up to 20 s for the child to write
            listing = try? String(contentsOfFile: out, encoding: .utf8)
            if listing == nil { usleep(50_000) }
        }
        let fds = Set(try XCTUnwrap(listing, "the child wrote its listing").split(separator: "\n").map(String.init))
        XCTAssertFalse(fds.contains(String(leaked)), "the child inherited descriptor \(leaked): \(fds.sorted())")
        XCTAssertTrue(fds.isSuperset(of: ["0", "1", "2"]), "\(fds.sorted())")
    }
}
