import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `-o PATH` writes *into* what PATH is: a regular file is replaced atomically (keeping its mode and
/// owner), a device, FIFO or descriptor name is written in place, a symbolic link is written through,
/// a directory is an error naming it. (The device node is made with mknod here: never /dev/null itself.)
final class OutputTargetTests: E2ETestCase {
    private func lstatus(_ url: URL) -> stat? {
        var st = stat()
        return lstat(url.path, &st) == 0 ? st : nil
    }

    func testCharacterDeviceStaysADevice() throws {
        let device = file("null")
        guard mknod(device.path, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 else {
            throw XCTSkip("mknod is not permitted here (errno \(errno)): needs root, as CI runs")
        }
        let r = try get([imageURL("tiny.jpg"), "-o", device.path])
        assertExit(r, 0)
        let st = try XCTUnwrap(lstatus(device))
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFCHR, "-o DEVICE must stay a character device:\n\(r)")
        XCTAssertEqual(st.st_rdev, dev_t((1 << 8) | 3), "the same device numbers")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path), ["null"], "no temporary file left")
    }

    /// /dev/stdout is a link to /proc/self/fd/1. A test never names /dev/stdout itself: a broken build
    /// would replace the system's link (this happened once). A link made here stands in for it.
    func testStdoutLinkDeliversToTheStdoutPipe() throws {
        let stdoutLink = file("stdout")
        XCTAssertEqual(symlink("/proc/self/fd/1", stdoutLink.path), 0)
        for target in [stdoutLink.path, "/proc/self/fd/1"] {
            let r = try get([imageURL("tiny.jpg"), "-o", target])
            assertExit(r, 0)
            XCTAssertEqual(r.stdout, try E2EPaths.fixtureData("tiny.jpg"), "-o \(target): the image must reach the stdout pipe:\n\(r)")
        }
        XCTAssertEqual(lstatus(stdoutLink).map { $0.st_mode & S_IFMT }, S_IFLNK, "the link stays a link")
    }

    func testFIFOReaderGetsTheWholeImage() throws {
        let fifo = file("pipe")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let received = ReaderBox()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            received.set(readAll(fifo.path))  // blocks until a writer opens it
            done.signal()
        }
        let r = try get([imageURL("photo.jpg"), "-o", fifo.path])
        assertExit(r, 0)
        if done.wait(timeout: .now() + 10) == .timedOut {
            // Nobody opened the FIFO for writing: open it ourselves so the reader thread ends.
            let fd = open(fifo.path, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            XCTFail("the FIFO's reader never saw a writer:\n\(r)")
            _ = done.wait(timeout: .now() + 5)
        }
        XCTAssertEqual(received.get(), try E2EPaths.fixtureData("photo.jpg"), "the reader gets the whole image")
        XCTAssertEqual(lstatus(fifo).map { $0.st_mode & S_IFMT }, S_IFIFO, "the FIFO is still a FIFO")
    }

    func testExistingFileKeepsItsModeAndOwner() throws {
        let out = file("private.jpg")
        XCTAssertTrue(FileManager.default.createFile(atPath: out.path, contents: Data("old".utf8)))
        XCTAssertEqual(chmod(out.path, 0o600), 0)
        let asRoot = geteuid() == 0
        if asRoot { XCTAssertEqual(chown(out.path, 1234, 2345), 0) }
        let r = try get([imageURL("tiny.jpg"), "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .jpeg, width: 100, height: 67)
        let st = try XCTUnwrap(lstatus(out))
        XCTAssertEqual(st.st_mode & 0o7777, 0o600, "an existing 0600 file stays 0600")
        if asRoot {
            XCTAssertEqual(st.st_uid, 1234, "owner kept when root")
            XCTAssertEqual(st.st_gid, 2345, "group kept when root")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path), ["private.jpg"], "no temporary file left")
    }

    func testNewFileIsCreated() throws {
        let out = file("new.jpg")
        let r = try get([imageURL("tiny.jpg"), "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .jpeg, width: 100, height: 67)
        XCTAssertEqual(lstatus(out).map { $0.st_mode & S_IFMT }, S_IFREG)
    }

    func testSymlinkToAFileStaysALinkAndItsTargetGetsTheImage() throws {
        let target = file("target.jpg")
        XCTAssertTrue(FileManager.default.createFile(atPath: target.path, contents: Data("old".utf8)))
        XCTAssertEqual(chmod(target.path, 0o640), 0)
        let link = file("link.jpg")
        XCTAssertEqual(symlink("target.jpg", link.path), 0)
        let r = try get([imageURL("tiny.jpg"), "-o", link.path])
        assertExit(r, 0)
        XCTAssertEqual(lstatus(link).map { $0.st_mode & S_IFMT }, S_IFLNK, "the link stays a link:\n\(r)")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), "target.jpg")
        assertImageFile(target, .jpeg, width: 100, height: 67, "the link's target gets the image")
        XCTAssertEqual(lstatus(target).map { $0.st_mode & 0o7777 }, 0o640, "the target keeps its mode")
    }

    func testDanglingSymlinkIsRefused() throws {
        let link = file("dangling.jpg")
        XCTAssertEqual(symlink("nowhere/missing.jpg", link.path), 0)
        let r = try get([imageURL("tiny.jpg"), "-o", link.path])
        assertExit(r, 2)
        XCTAssertTrue(r.stderrLines.first?.contains(link.path) ?? false, "the error names the link:\n\(r)")
        XCTAssertEqual(try server.totalRequests(), 0, "refused before anything is fetched")
        XCTAssertEqual(lstatus(link).map { $0.st_mode & S_IFMT }, S_IFLNK)
    }

    func testDirectoryIsAnErrorNamingIt() throws {
        let dir = file("images")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let r = try get([imageURL("tiny.jpg"), "-o", dir.path])
        assertExit(r, 2)
        XCTAssertTrue(r.stderrLines.first?.contains(dir.path) ?? false, "the error names the directory:\n\(r)")
        XCTAssertTrue(r.stderrLines.first?.contains("directory") ?? false, "the message says why:\n\(r)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "nothing written into it")
        XCTAssertEqual(try server.totalRequests(), 0, "refused before anything is fetched")
    }
}

/// Every byte of a file or FIFO, read with plain POSIX calls (Foundation refuses a FIFO).
private func readAll(_ path: String) -> Data? {
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

private final class ReaderBox: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var data: Data?
    func set(_ d: Data?) { lock.lock(); data = d; lock.unlock() }
    func get() -> Data? { lock.lock(); defer { lock.unlock() }; return data }
}
