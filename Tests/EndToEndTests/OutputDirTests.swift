import Foundation
import XCTest

/// `get SOURCE... --output-dir DIR` and `prefetch LIST --output-dir DIR [--name TEMPLATE]
/// [--create-dirs]`: where each file goes, deterministic collision names, never overwriting a file
/// of the same run, exit codes and the records' "file".
final class OutputDirTests: E2ETestCase {
    private var out: URL { work.appendingPathComponent("out", isDirectory: true) }

    private func names(_ dir: URL? = nil) -> [String] {
        let dir = dir ?? out
        let all = (FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String]) ?? []
        return all.filter { !FileSystemTestsHelper.isDirectory(dir.appendingPathComponent($0)) }.sorted()
    }

    func testGetSeveralSourcesNeedsOutputDir() throws {
        let a = imageURL("tiny.jpg"), b = imageURL("grey.jpg")
        assertExit(try get([a, b]), 2)
        assertExit(try get([a, b, "-o", file("x.jpg").path]), 2)
        assertExit(try get([a, b, "--output-dir", out.path]), 2)   // a missing directory without --create-dirs
        XCTAssertEqual(try server.totalRequests(), 0)
    }

    func testGetWritesEachSourceAndSaysWhere() throws {
        let r = try get([imageURL("tiny.jpg", "v=1"), imageURL("grey.jpg"), imageURL("tiny.jpg", "v=2"),
                         "--output-dir", out.path, "--create-dirs", "--json"])
        assertExit(r, 0)
        XCTAssertEqual(names(), ["grey.jpg", "tiny-3.jpg", "tiny.jpg"], "the third takes its position as suffix")
        let files = r.json.compactMap { $0.string("file") }
        XCTAssertEqual(files, [out.appendingPathComponent("tiny.jpg").path, out.appendingPathComponent("grey.jpg").path,
                               out.appendingPathComponent("tiny-3.jpg").path])
        _ = assertImageFile(out.appendingPathComponent("tiny-3.jpg"), .jpeg)

        let partly = try get([imageURL("tiny.jpg"), server.url("/status/404"), "--output-dir", out.path, "--json"])
        assertExit(partly, 5)
        XCTAssertEqual(partly.json.count, 2)
    }

    func testPrefetchNamesAreDecidedByTheListNotBySpeed() throws {
        // Line 1 is slow and line 2 fast: line 1 still gets the plain name.
        let list = try writeList([server.url("/slow/tiny.jpg?seconds=0.8"), imageURL("tiny.jpg", "v=2"),
                                  "\(imageURL("grey.jpg")) name=\"custom {w}.{ext}\"", imageURL("tiny.jpg", "v=4")])
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-j", "4", "--json", list.path,
                              "--output-dir", out.path, "--create-dirs", "-f", "png"])
        assertExit(r, 0)
        XCTAssertEqual(names(), ["custom 100.png", "tiny-2.png", "tiny-4.png", "tiny.png"].sorted())
        let slow = try XCTUnwrap(r.json.first { $0.string("source")?.contains("/slow/") == true })
        XCTAssertEqual(slow.string("file"), out.appendingPathComponent("tiny.png").path)
        _ = assertImageFile(out.appendingPathComponent("tiny.png"), .png)
        XCTAssertEqual(r.json.filter { $0["summary"] == nil }.compactMap { $0.string("file") }.count, 4)
    }

    func testTemplateWithSubdirectoriesAndRefusedTemplates() throws {
        let list = try writeList([imageURL("tiny.jpg")])
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, list.path, "--output-dir", out.path,
                              "--create-dirs", "--name", "{host}/{w}x{h}-{line}.{ext}"])
        assertExit(r, 0)
        XCTAssertEqual(names(), ["127.0.0.1/100x67-1.jpg"])
        for bad in ["../x.{ext}", "/abs.{ext}", "{nope}.jpg", "a//b"] {
            let refused = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, list.path, "--output-dir", out.path, "--name", bad])
            assertExit(refused, 2)
        }
        let noDir = try writeList(["\(imageURL("tiny.jpg")) name=x.jpg"], name: "nodir.txt")
        let malformed = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, noDir.path])
        assertExit(malformed, 1)
        XCTAssertTrue(malformed.stderr.contains("nodir.txt:1: name= needs --output-dir"), malformed.stderr)
    }

    func testAFileThatCannotBeWrittenFailsItsLine() throws {
        try FileManager.default.createDirectory(at: out.appendingPathComponent("tiny.jpg"), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: out.appendingPathComponent("grey.jpg"))
        let list = try writeList([imageURL("tiny.jpg"), imageURL("grey.jpg")])
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", list.path, "--output-dir", out.path])
        assertExit(r, 1)
        let failed = try XCTUnwrap(r.json.first { $0.string("status") == "failed" })
        XCTAssertTrue(r.stderr.contains("not a regular file"), r.stderr)
        XCTAssertEqual(errorCode(failed), "file_error")
        _ = assertImageFile(out.appendingPathComponent("grey.jpg"), .jpeg, "a file from before the run is replaced")
    }
}

extension OutputDirTests {
    /// A symbolic link bearing an image's name is never written through (the name came from the network).
    func testALinkInTheOutputDirectoryIsNotWrittenThrough() throws {
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let victim = file("victim.txt")
        try Data("keep".utf8).write(to: victim)
        try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("tiny.jpg"), withDestinationURL: victim)
        let r = try get([imageURL("tiny.jpg"), imageURL("grey.jpg"), "--output-dir", out.path, "--json"])
        assertExit(r, 1)
        XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "keep")
        XCTAssertEqual(r.json.compactMap { $0.string("file") }, [out.appendingPathComponent("grey.jpg").path])
    }

    /// A directory on the way that is a link planted in DIR (here the one `{host}` names) is never
    /// followed, with or without --create-dirs.
    func testALinkedSubdirectoryIsNotFollowed() throws {
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let outside = file("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("127.0.0.1"), withDestinationURL: outside)
        for extra in [[], ["--create-dirs"]] {
            let r = try get([imageURL("tiny.jpg"), "--output-dir", out.path, "--name", "{host}/sub/{name}.{ext}"] + extra)
            assertExit(r, 1)
            XCTAssertTrue(r.stderr.contains("symbolic link"), "\(r)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside.path), [], "nothing written outside")
    }
}

enum FileSystemTestsHelper {
    static func isDirectory(_ url: URL) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) && isDir.boolValue
    }
}

extension OutputDirTests {
    /// The text summary under --no-clobber says how many files were kept as they were.
    func testTheSummarySaysHowManyFilesNoClobberKept() throws {
        let list = try writeList([imageURL("tiny.jpg", "v=kept1"), imageURL("tiny.jpg", "v=kept2")])
        let dir = file("kept-out")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let args = ["prefetch", "--cache-dir", cacheDir.path, "--output-dir", dir.path, "--name", "{line}.{ext}", "--no-clobber", list.path]
        let first = try imgfetch(args)
        assertExit(first, 0)
        XCTAssertFalse(first.stderr.contains("kept"), first.stderr)
        let second = try imgfetch(args)
        assertExit(second, 0)
        XCTAssertEqual(second.stdout, Data())
        XCTAssertTrue(second.stderr.contains("2 ok") && second.stderr.contains("2 kept (--no-clobber)"), second.stderr)
        let json = try imgfetch(Array(args.dropLast()) + ["--json", list.path])
        assertExit(json, 0)
        XCTAssertEqual(json.json.last?["summary"] as? Bool, true, "\(json)")
        XCTAssertEqual(json.json.last?.int("kept"), 2, "the JSON summary counts them too: \(json)")
        XCTAssertEqual(first.json.count, 0, "no --json, nothing on stdout")
    }
}
