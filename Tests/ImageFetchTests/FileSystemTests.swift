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
