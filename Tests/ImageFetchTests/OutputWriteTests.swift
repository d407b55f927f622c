import Foundation
import XCTest
@testable import ImageFetch

/// `FileSystem.writeOutput`: what each kind of path is taken for, and no temporary file left behind
/// when a write fails.
final class OutputWriteTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "imgfetch-output-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testKinds() throws {
        let file = directory + "/a.jpg"
        XCTAssertEqual(try FileSystem.outputKind(file), .replace(file), "a new path")
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        XCTAssertEqual(try FileSystem.outputKind(file), .replace(file), "a regular file")
        XCTAssertEqual(symlink("a.jpg", directory + "/link.jpg"), 0)
        let resolved = try XCTUnwrap(realpath(file, nil).map { p in defer { free(p) }; return String(cString: p) })
        XCTAssertEqual(try FileSystem.outputKind(directory + "/link.jpg"), .replace(resolved), "a link: its target")
        XCTAssertEqual(try FileSystem.outputKind("/dev/stdout"), .inPlace("/dev/stdout"), "a descriptor name")
        XCTAssertEqual(try FileSystem.outputKind("/proc/self/fd/1"), .inPlace("/proc/self/fd/1"))
        XCTAssertThrowsError(try FileSystem.outputKind(directory), "a directory")
        XCTAssertEqual(mkfifo(directory + "/fifo", 0o600), 0)
        XCTAssertEqual(try FileSystem.outputKind(directory + "/fifo"), .inPlace(directory + "/fifo"))
    }

    func testFailedReplaceLeavesNoTemporaryFile() throws {
        // A non-empty directory where the file should go: the rename fails after the temporary file was written.
        let target = directory + "/target"
        try FileManager.default.createDirectory(atPath: target + "/inside", withIntermediateDirectories: true)
        XCTAssertThrowsError(try FileSystem.replaceAtomically(Array("image".utf8), file: target))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), ["target"], "the temporary file is removed")
    }

    func testPathInAMissingDirectoryIsAnError() throws {
        let missing = directory + "/gone/x.jpg"
        XCTAssertThrowsError(try FileSystem.writeOutput(Array("image".utf8), to: missing))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [])
    }
}
