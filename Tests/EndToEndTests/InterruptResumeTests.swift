import Foundation
import XCTest

/// Ctrl-C or SIGTERM on a slow `get` keeps what came, as a timeout does: the same `get` then asks the
/// server for the rest only (`Range` + `If-Range`), and says so (`-v`, `resumed_from`).
final class InterruptResumeTests: E2ETestCase {
    private func assertResumes(after signal: Int32, exiting code: Int32) throws {
        let url = imageURL("photo.jpg", "trickle=40&v=\(signal)")
        let path = imagePath("photo.jpg", "trickle=40&v=\(signal)")
        let process = try launch(["get", "--cache-dir", cacheDir.path, url, "-s", "100", "-o", file("a.jpg").path])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Once a good part of the body has been sent (4000 bytes every 40 ms: ~3.4 s in all).
        let deadline = Date().addingTimeInterval(20)
        func midway() throws -> Bool { ((try server.requests(path).first?.sent).map { (60_000..<300_000).contains($0) }) ?? false }
        while try !midway() && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, code)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("a.jpg").path), "no image after an interrupt")

        let again = try get([url, "-s", "100", "--json", "-v", "-o", file("b.jpg").path])
        assertExit(again, 0)
        let requests = try server.requests(path)
        XCTAssertEqual(requests.count, 2, "\(requests)")
        guard requests.count == 2, let range = requests[1].headers["range"] else { return XCTFail("no Range asked: \(requests)") }
        XCTAssertNotNil(requests[1].headers["if-range"], "the rest of the same version only")
        let from = Int(range.dropFirst("bytes=".count).dropLast()) ?? -1
        XCTAssertGreaterThan(from, 0, range)
        XCTAssertEqual(singleRecord(again).int("resumed_from"), from)
        XCTAssertTrue(again.stderr.contains("resumed at \(from) bytes"), again.stderr)
        assertImageFile(file("b.jpg"), .jpeg, width: 100)
        let whole = try get([imageURL("photo.jpg"), "-s", "100", "-o", file("c.jpg").path])
        assertExit(whole, 0)
        XCTAssertEqual(try Data(contentsOf: file("b.jpg")), try Data(contentsOf: file("c.jpg")), "the resumed body is the whole file's")
    }

    func testSIGINTKeepsThePartialDownloadAndTheNextGetAsksForTheRest() throws {
        try assertResumes(after: SIGINT, exiting: 130)
    }

    func testSIGTERMKeepsThePartialDownloadToo() throws {
        try assertResumes(after: SIGTERM, exiting: 143)
    }
}
