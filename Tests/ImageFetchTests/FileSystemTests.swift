import Foundation
import XCTest
@testable import ImageFetch

final class FileSystemTests: XCTestCase {
    /// A config file is read through one descriptor: a FIFO is refused without waiting for a
    /// writer, a file over the limit is refused, a regular one is read whole.
    func testReadRegularRefusesAFIFOAndAFileOverTheLimit() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fs-regular-\(UUID().uuidString)").path
        try FileSystem.makeDirectories(dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertEqual(mkfifo(dir + "/fifo", 0o600), 0)
        XCTAssertThrowsError(try FileSystem.readRegular(dir + "/fifo", maxBytes: 100)) { error in
            XCTAssertEqual((error as? FileSystem.Failure)?.errno, EINVAL)
        }
        FileSystem.overwrite(Array(repeating: 7, count: 101), at: dir + "/big")
        XCTAssertThrowsError(try FileSystem.readRegular(dir + "/big", maxBytes: 100)) { error in
            XCTAssertEqual((error as? FileSystem.Failure)?.errno, EFBIG)
        }
        FileSystem.overwrite(Array(repeating: 7, count: 100), at: dir + "/ok")
        XCTAssertEqual(try FileSystem.readRegular(dir + "/ok", maxBytes: 100), Array(repeating: 7, count: 100))
    }

    /// A descriptor read to its end whatever its size hint: a pipe (no size: pieces of 64 KiB, then
    /// doubling) gives every byte, in order, and a limit stops one byte past it.
    func testReadAllGivesEveryByteOfAPipeWithoutASizeAndStopsPastTheLimit() throws {
        let payload = (0..<300_001).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
        for (hint, limit) in [(Int64(0), nil), (Int64(1000), nil), (Int64(payload.count), nil), (Int64(0), 100_000)] as [(Int64, Int?)] {
            var fds: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&fds), 0)
            let writer = Thread { [fds] in
                _ = FileSystem.writeAll(fd: fds[1], payload)
                close(fds[1])
            }
            writer.start()
            let bytes = try FileSystem.readAll(fd: fds[0], path: "pipe", sizeHint: hint, limit: limit)
            var sink = [UInt8](repeating: 0, count: 65536)   // the rest, so the writer never meets a closed pipe
            while sink.withUnsafeMutableBytes({ read(fds[0], $0.baseAddress, $0.count) }) > 0 {}
            close(fds[0])
            if let limit {
                XCTAssertEqual(bytes, Array(payload.prefix(limit + 1)), "hint \(hint), limit \(limit): one byte past the limit")
            } else {
                XCTAssertEqual(bytes, payload, "hint \(hint): every byte")
            }
        }
    }

    /// A large directory: readdir returns records shorter than `struct dirent` at buffer ends, and
    /// copying the whole struct there read past the buffer (a crash in `cache ls` over 100,000 entries).
    func testListingALargeDirectoryWithLongAndShortNames() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fs-list-\(UUID().uuidString)").path
        try FileSystem.makeDirectories(dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var expected = Set<String>()
        for i in 0..<4000 {
            let name = i % 2 == 0 ? "\(i)" : String(repeating: "n", count: 200) + "\(i)"
            expected.insert(name)
            FileSystem.overwrite([1], at: dir + "/" + name)
        }
        XCTAssertEqual(Set(FileSystem.list(dir)), expected)
    }

    func testMakeDirectoriesUnderARegularFileFails() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fs-file-\(UUID().uuidString)").path
        FileSystem.overwrite([1], at: file)
        defer { FileSystem.remove(file) }
        XCTAssertThrowsError(try FileSystem.makeDirectories(file + "/a/b"))
    }

    func testWriteAtomicallyReplacesWholeFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fs-atomic-\(UUID().uuidString)").path
        try FileSystem.makeDirectories(dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileSystem.writeAtomically(Array(repeating: 1, count: 10_000), to: dir + "/x", temporaryDirectory: dir)
        try FileSystem.writeAtomically([2, 3], to: dir + "/x", temporaryDirectory: dir)
        XCTAssertEqual(try FileSystem.read(dir + "/x"), [2, 3])
        XCTAssertEqual(FileSystem.list(dir), ["x"], "no temporary file is left behind")
    }
}
