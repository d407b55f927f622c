import Foundation
import XCTest
@testable import ImageFetch

/// `LockFile`: an exclusive lock between open files (so between processes) whose holder can be
/// named by the one refused it; a blocking variant; a filesystem that refuses locks.
final class LockFileTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("lockfile-\(UUID().uuidString)").path
        try FileSystem.makeDirectories(dir)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    private func acquired(_ attempt: LockFile.Attempt, file: StaticString = #filePath, line: UInt = #line) -> LockFile? {
        if case .acquired(let lock) = attempt { return lock }
        XCTFail("expected the lock, got \(attempt)", file: file, line: line)
        return nil
    }

    func testASecondTakerIsRefusedWithTheHoldersTextUntilRelease() throws {
        let path = dir + "/a.lock"
        let first = try XCTUnwrap(acquired(try LockFile.tryExclusive(path, holder: "node7 4242 2026-12-04T22:00:00Z")))
        guard case .held(let text) = try LockFile.tryExclusive(path, holder: "other 1 now") else { return XCTFail("not refused") }
        XCTAssertEqual(text, "node7 4242 2026-12-04T22:00:00Z")
        first.release()
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "", "no holder named after the release")
        let second = try XCTUnwrap(acquired(try LockFile.tryExclusive(path, holder: "other 1 now")))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "other 1 now\n")
        second.release()
    }

    func testTheHoldersTextIsBoundedAndPrintable() throws {
        let path = dir + "/b.lock"
        try Data(("\u{1B}[2J" + String(repeating: "x", count: 5000) + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let outsider = open(path, O_RDONLY)
        defer { close(outsider) }
        XCTAssertEqual(flock(outsider, LOCK_EX), 0)   // a holder that wrote a hostile text
        guard case .held(let text) = try LockFile.tryExclusive(path, holder: "me 1 now") else { return XCTFail("not refused") }
        XCTAssertFalse(text.contains("\u{1B}"))
        XCTAssertLessThanOrEqual(text.utf8.count, LockFile.holderLimit)
    }

    func testTheBlockingVariantWaitsForTheRelease() throws {
        let path = dir + "/c.lock"
        let first = try XCTUnwrap(acquired(try LockFile.exclusive(path, holder: "first 1 now")))
        let took = expectation(description: "the waiter takes the lock once released")
        let thread = Thread {
            if case .acquired(let lock)? = try? LockFile.exclusive(path, holder: "second 2 now") {
                lock.release()
                took.fulfill()
            }
        }
        thread.start()
        first.release()
        wait(for: [took], timeout: 30)
    }

    func testAFilesystemThatRefusesLocksIsUnsupportedNotAFailure() throws {
        for error in [ENOLCK, ENOSYS, EINVAL, EOPNOTSUPP] {
            let attempt = try LockFile.take(dir + "/d.lock", holder: "me 1 now", wait: false, lock: { _, _ in errno = error; return -1 })
            guard case .unsupported(let failure) = attempt else { return XCTFail("\(error): \(attempt)") }
            XCTAssertEqual(failure.errno, error)
        }
        XCTAssertThrowsError(try LockFile.take(dir + "/d.lock", holder: "me", wait: false, lock: { _, _ in errno = EIO; return -1 }))
    }

    func testALinkOrADirectoryIsNeverLocked() throws {
        let target = dir + "/target"
        FileManager.default.createFile(atPath: target, contents: Data("keep".utf8))
        XCTAssertEqual(symlink(target, dir + "/link.lock"), 0)
        XCTAssertThrowsError(try LockFile.tryExclusive(dir + "/link.lock", holder: "me 1 now"))
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "keep")
        try FileSystem.makeDirectories(dir + "/dir.lock")
        XCTAssertThrowsError(try LockFile.tryExclusive(dir + "/dir.lock", holder: "me 1 now"))
    }

    func testAFileOfAnOpenDirectoryIsLockedAgainstItsPath() throws {
        let directory = try DirectoryHandle.open(dir, followingLink: false)
        let first = try XCTUnwrap(acquired(try LockFile.take("e.lock", in: directory, holder: "by-handle 1 now", wait: false)))
        guard case .held(let text) = try LockFile.tryExclusive(dir + "/e.lock", holder: "by-path 2 now") else { return XCTFail("not refused") }
        XCTAssertEqual(text, "by-handle 1 now")
        first.release()
    }

    func testTheProcessHolderIsHostPidAndStart() {
        let parts = LockFile.processHolder(started: "2026-12-04T22:00:00Z").split(separator: " ")
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(parts[1], "\(getpid())")
        XCTAssertEqual(parts[2], "2026-12-04T22:00:00Z")
    }
}
