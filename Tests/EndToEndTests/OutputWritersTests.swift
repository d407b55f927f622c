import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Every writer of a user's file follows `get -o`'s rules (OutputTargetTests): `cache sheet -o`
/// writes a device or FIFO in place, writes through a link and keeps a file's mode and owner;
/// `--output-dir` keeps a replaced file's mode and owner (and still refuses a link, a FIFO or a
/// device where a name from the network lands).
final class OutputWritersTests: E2ETestCase {
    private func lstatus(_ path: String) -> stat? {
        var st = stat()
        return lstat(path, &st) == 0 ? st : nil
    }

    private func sheet(_ output: String) throws -> RunResult {
        try imgfetch(["cache", "sheet", "--cache-dir", cacheDir.path, "-o", output], timeout: 60)
    }

    private func fillCache() throws {
        // A variant: the sheet shows variants only (an original alone writes no sheet).
        assertExit(try get([imageURL("tiny.jpg"), "-s", "32", "-o", file("tiny-out.jpg").path]), 0)
    }

    func testSheetIntoADeviceLeavesTheDevice() throws {
        try fillCache()
        let device = file("null.jpg")
        guard mknod(device.path, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 else {
            throw XCTSkip("mknod is not permitted here (errno \(errno)): needs root, as CI runs")
        }
        let r = try sheet(device.path)
        assertExit(r, 0)
        let st = try XCTUnwrap(lstatus(device.path))
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFCHR, "-o DEVICE stays a character device:\n\(r)")
        XCTAssertEqual(st.st_rdev, dev_t((1 << 8) | 3))
    }

    func testSheetIntoAFIFOReachesItsReader() throws {
        try fillCache()
        let fifo = file("sheet.jpg")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let received = Box()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            received.set(readFIFO(fifo.path))   // blocks until a writer opens it
            done.signal()
        }
        let r = try sheet(fifo.path)
        assertExit(r, 0)
        if done.wait(timeout: .now() + 10) == .timedOut {
            let fd = open(fifo.path, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            XCTFail("the FIFO's reader never saw a writer:\n\(r)")
            _ = done.wait(timeout: .now() + 5)
        }
        assertImage(received.get() ?? Data(), .jpeg, "the sheet through the FIFO")
        XCTAssertEqual(lstatus(fifo.path).map { $0.st_mode & S_IFMT }, S_IFIFO, "the FIFO is still a FIFO")
    }

    func testSheetThroughALinkAndIntoAPrivateFile() throws {
        try fillCache()
        let target = file("target.jpg")
        XCTAssertTrue(FileManager.default.createFile(atPath: target.path, contents: Data("old".utf8)))
        XCTAssertEqual(chmod(target.path, 0o640), 0)
        XCTAssertEqual(symlink("target.jpg", file("link.jpg").path), 0)
        assertExit(try sheet(file("link.jpg").path), 0)
        XCTAssertEqual(lstatus(file("link.jpg").path).map { $0.st_mode & S_IFMT }, S_IFLNK, "the link stays a link")
        assertImageFile(target, .jpeg, "the link's target gets the sheet")
        XCTAssertEqual(lstatus(target.path).map { $0.st_mode & 0o7777 }, 0o640, "the target keeps its mode")

        let secret = file("private.png")
        XCTAssertTrue(FileManager.default.createFile(atPath: secret.path, contents: Data("old".utf8)))
        XCTAssertEqual(chmod(secret.path, 0o600), 0)
        if geteuid() == 0 { XCTAssertEqual(chown(secret.path, 1234, 2345), 0) }
        assertExit(try sheet(secret.path), 0)
        assertImageFile(secret, .png)
        let st = try XCTUnwrap(lstatus(secret.path))
        XCTAssertEqual(st.st_mode & 0o7777, 0o600, "an existing 0600 file stays 0600")
        if geteuid() == 0 { XCTAssertEqual([st.st_uid, st.st_gid], [1234, 2345], "owner and group kept as root") }

        // A directory or a dangling link is refused before any work, naming it (exit 2).
        XCTAssertEqual(symlink("nowhere/x.jpg", file("dangling.jpg").path), 0)
        try FileManager.default.createDirectory(at: file("dir.jpg"), withIntermediateDirectories: true)
        for bad in [file("dangling.jpg").path, file("dir.jpg").path] {
            let r = try sheet(bad)
            assertExit(r, 2)
            XCTAssertTrue(r.stderr.contains(bad), "the error names it:\n\(r)")
        }
        XCTAssertEqual(lstatus(file("dangling.jpg").path).map { $0.st_mode & S_IFMT }, S_IFLNK)
        let left = try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(left, [], "no temporary file left")
    }

    func testOutputDirKeepsAReplacedFilesModeAndOwner() throws {
        let out = work.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let existing = out.appendingPathComponent("tiny.jpg")
        XCTAssertTrue(FileManager.default.createFile(atPath: existing.path, contents: Data("old".utf8)))
        XCTAssertEqual(chmod(existing.path, 0o600), 0)
        if geteuid() == 0 { XCTAssertEqual(chown(existing.path, 1234, 2345), 0) }
        let r = try get([imageURL("tiny.jpg"), imageURL("grey.jpg"), "--output-dir", out.path])
        assertExit(r, 0)
        assertImageFile(existing, .jpeg)
        let st = try XCTUnwrap(lstatus(existing.path))
        XCTAssertEqual(st.st_mode & 0o7777, 0o600, "an existing 0600 file stays 0600")
        if geteuid() == 0 { XCTAssertEqual([st.st_uid, st.st_gid], [1234, 2345], "owner and group kept as root") }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), ["grey.jpg", "tiny.jpg"])
    }
}

private final class Box: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var data: Data?
    func set(_ d: Data?) { lock.lock(); data = d; lock.unlock() }
    func get() -> Data? { lock.lock(); defer { lock.unlock() }; return data }
}

/// Every byte of a FIFO, read with plain POSIX calls (Foundation refuses a FIFO).
private func readFIFO(_ path: String) -> Data? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return out }
        out.append(contentsOf: buffer[0..<n])
    }
}
