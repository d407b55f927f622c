import Foundation
import XCTest
@testable import imgfetch
@testable import ImageFetch
#if canImport(Glibc)
import Glibc
#endif

/// `ListReader` on real descriptors: a pipe is followed line by line, a pending read gives way to a
/// cancellation, and only a regular file is counted ahead.
final class ListReaderTests: XCTestCase {
    private var fds: [Int32] = [-1, -1]

    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertEqual(pipe(&fds), 0)
    }

    override func tearDown() {
        for fd in fds where fd >= 0 { close(fd) }
        super.tearDown()
    }

    private func write(_ text: String) {
        XCTAssertNil(FileSystem.writeAll(fd: fds[1], Array(text.utf8)))
    }

    /// Closes the write end after `seconds`, so a reader that waits for more input than it should
    /// still returns (and the test fails on its timing instead of hanging).
    private func watchdog(_ seconds: Double) {
        let fd = fds[1]
        fds[1] = -1
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { close(fd) }
    }

    func testALineOfAPipeIsReturnedAsSoonAsItArrives() async throws {
        let reader = try ListReader(path: "/dev/fd/\(fds[0])")
        XCTAssertFalse(reader.isRegularFile)
        XCTAssertNil(reader.countSources(), "a pipe is never counted ahead: that would read it away")
        write("\u{FEFF}http://a.test/1.jpg\r\n")
        watchdog(5)
        let started = FileSystem.monotonic()
        let batch = await reader.nextBatch()
        XCTAssertLessThan(FileSystem.monotonic() - started, 2, "the line is returned while the pipe stays open")
        XCTAssertEqual(batch, [ListLine(number: 1, "http://a.test/1.jpg")])
    }

    func testCancellingAPendingReadReturnsAtOnce() async throws {
        let reader = try ListReader(path: "/dev/fd/\(fds[0])")
        let task = Task { await reader.nextBatch() }
        try await Task.sleep(nanoseconds: 200_000_000)
        watchdog(5)
        let started = FileSystem.monotonic()
        task.cancel()
        let batch = await task.value
        XCTAssertLessThan(FileSystem.monotonic() - started, 1, "a cancellation does not wait for input")
        XCTAssertEqual(batch, [])

        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await reader.nextBatch()
        }
        let late = await cancelledFirst.value
        XCTAssertEqual(late, [], "a task cancelled before it reads does not read")
    }

    func testARegularFileIsCountedWithoutBeingConsumed() async throws {
        let path = NSTemporaryDirectory() + "imgfetch-list-\(UUID().uuidString).txt"
        defer { unlink(path) }
        let text = "\u{FEFF}# a list\r\nhttp://a.test/1.jpg\r\n\r\nhttp://a.test/2.jpg\r\n#\r\nhttp://a.test/3.jpg"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let reader = try ListReader(path: path)
        XCTAssertTrue(reader.isRegularFile)
        XCTAssertEqual(reader.countSources(), 3)
        var lines: [ListLine] = []
        while true {
            let batch = await reader.nextBatch()
            if batch.isEmpty { break }
            lines += batch
        }
        XCTAssertEqual(lines.count, 6, "the count read nothing away")
        XCTAssertEqual(lines.last, ListLine(number: 6, "http://a.test/3.jpg"))
        XCTAssertNil(reader.readFailure)
        XCTAssertEqual(reader.countSources(), 0, "counted from the current offset: nothing is left")
    }

    func testADirectoryOrAMissingFileIsRefusedNamingIt() {
        XCTAssertThrowsError(try ListReader(path: NSTemporaryDirectory())) { error in
            XCTAssertTrue("\(error)".contains("is a directory"), "\(error)")
        }
        XCTAssertThrowsError(try ListReader(path: "/nonexistent/list.txt")) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/list.txt"), "\(error)")
        }
    }
}
