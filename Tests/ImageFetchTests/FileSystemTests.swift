import Foundation
import XCTest
@testable import ImageFetch

final class FileSystemTests: XCTestCase {
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
