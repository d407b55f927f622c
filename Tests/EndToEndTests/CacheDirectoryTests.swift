import Foundation
import XCTest

/// Which cache directory is used, and what happens when it cannot be used (exit 4).
final class CacheDirectoryTests: E2ETestCase {
    private func unusableCacheDir() throws -> String {
        // Tests run as root, so permissions do not stop anything: a path under a regular file
        // cannot be created by anyone.
        let blocker = file("file.txt")
        try Data("not a directory\n".utf8).write(to: blocker)
        return blocker.appendingPathComponent("cache").path
    }

    func testUnusableCacheDirExits4ButStillWritesTheImage() throws {
        let out = file("out.jpg")
        let r = try imgfetch(["get", "--cache-dir", try unusableCacheDir(), imageURL("photo.jpg"), "-s", "300", "-o", out.path])
        assertExit(r, 4)
        XCTAssertFalse(r.stderrLines.isEmpty, "a message on stderr:\n\(r)")
        assertImageFile(out, .jpeg, width: 300, height: 200)
    }

    func testUnusableCacheDirToStdoutStillDeliversTheImage() throws {
        let r = try imgfetch(["get", "--cache-dir", try unusableCacheDir(), imageURL("tiny.jpg")])
        assertExit(r, 4)
        assertImage(r.stdout, .jpeg, width: 100, height: 67)
    }

    func testCacheDirIsCreatedAndUsed() throws {
        XCTAssertFalse(FileManager.default.fileExists(atPath: cacheDir.path))
        assertExit(try get([imageURL("tiny.jpg"), "-o", file("o.jpg").path]), 0)
        XCTAssertFalse(regularFiles(under: cacheDir).isEmpty, "the entry is stored under --cache-dir")
    }

    func testEnvironmentVariableCacheDir() throws {
        let dir = root.appendingPathComponent("env-cache")
        let r = try imgfetch(["get", imageURL("tiny.jpg"), "-o", file("o.jpg").path],
                             env: ["IMGFETCH_CACHE_DIR": dir.path])
        assertExit(r, 0)
        XCTAssertFalse(regularFiles(under: dir).isEmpty, "the entry is stored under $IMGFETCH_CACHE_DIR")
    }

    func testXDGCacheHome() throws {
        let xdg = root.appendingPathComponent("xdg")
        let r = try imgfetch(["get", imageURL("tiny.jpg"), "-o", file("o.jpg").path],
                             env: ["XDG_CACHE_HOME": xdg.path])
        assertExit(r, 0)
        XCTAssertFalse(regularFiles(under: xdg.appendingPathComponent("imgfetch")).isEmpty,
                       "the entry is stored under $XDG_CACHE_HOME/imgfetch")
    }

    func testHomeCacheIsTheLastDefault() throws {
        let r = try imgfetch(["get", imageURL("tiny.jpg"), "-o", file("o.jpg").path])
        assertExit(r, 0)
        XCTAssertFalse(regularFiles(under: home.appendingPathComponent(".cache/imgfetch")).isEmpty,
                       "the entry is stored under ~/.cache/imgfetch")
    }

    func testCacheDirOptionBeatsEnvironment() throws {
        let envDir = root.appendingPathComponent("env-cache")
        let r = try get([imageURL("tiny.jpg"), "-o", file("o.jpg").path], env: ["IMGFETCH_CACHE_DIR": envDir.path])
        assertExit(r, 0)
        XCTAssertFalse(regularFiles(under: cacheDir).isEmpty)
        XCTAssertTrue(regularFiles(under: envDir).isEmpty, "--cache-dir wins over $IMGFETCH_CACHE_DIR")
    }
}
