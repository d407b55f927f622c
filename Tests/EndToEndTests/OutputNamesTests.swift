import Foundation
import XCTest

/// `{path}` and `{dir}` in `--name` (a remote folder layout kept, never leaving the directory),
/// `--no-clobber`, `--create-dirs` with `-o`, and identical list lines writing one file.
final class OutputNamesTests: E2ETestCase {
    private var out: URL { work.appendingPathComponent("out", isDirectory: true) }

    /// Every regular file under `out`, relative, sorted.
    private func written() -> [String] {
        regularFiles(under: out).map { String($0.standardizedFileURL.path.dropFirst(out.standardizedFileURL.path.count + 1)) }.sorted()
    }

    private func prefetch(_ lines: [String], _ args: [String]) throws -> RunResult {
        let list = try writeList(lines)
        return try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", list.path, "--output-dir", out.path] + args)
    }

    func testPathKeepsTheRemoteLayout() throws {
        let r = try prefetch([server.url("/tree/photos/2024/cat.jpg"), server.url("/tree/top.jpg?v=1")],
                             ["--create-dirs", "--name", "{path}"])
        assertExit(r, 0)
        XCTAssertEqual(written(), ["tree/photos/2024/cat.jpg", "tree/top.jpg"])
        let dirs = try prefetch([server.url("/tree/photos/2024/cat.jpg")], ["--create-dirs", "--name", "{host}/{dir}/{name}-{w}.{ext}", "-f", "png"])
        assertExit(dirs, 0)
        XCTAssertTrue(written().contains("127.0.0.1/tree/photos/2024/cat-100.png"), "\(written())\n\(dirs)")
    }

    /// `{path}` names the format written: WebP bytes in `cat.webp`, never in `cat.jpg`.
    func testPathTakesTheOutputFormatsExtension() throws {
        let r = try prefetch([server.url("/tree/photos/2024/cat.jpg")], ["--create-dirs", "--name", "{path}", "-f", "webp"])
        assertExit(r, 0)
        XCTAssertEqual(written(), ["tree/photos/2024/cat.webp"], "\(r)")
        _ = assertImageFile(out.appendingPathComponent("tree/photos/2024/cat.webp"), .webp)
        XCTAssertEqual(r.json.first?.string("file"), out.appendingPathComponent("tree/photos/2024/cat.webp").path)
        let same = try prefetch([server.url("/tree/top.jpg")], ["--create-dirs", "--name", "{path}", "-f", "jpeg"])
        assertExit(same, 0)
        XCTAssertTrue(written().contains("tree/top.jpg"), "an extension naming the format stays: \(written())")
        let stem = try prefetch([server.url("/tree/photos/2024/cat.jpg")], ["--create-dirs", "--name", "{dir}/{stem}-{w}.{ext}", "-f", "png"])
        assertExit(stem, 0)
        XCTAssertTrue(written().contains("tree/photos/2024/cat-100.png"), "\(written())\n\(stem)")
    }

    func testADirThatIsEmptyLeavesNoEmptyComponent() throws {
        // The source's path is /redirect: no directory part.
        let r = try prefetch([server.url("/redirect?to=/img/grey.jpg")], ["--create-dirs", "--name", "{dir}/{name}.{ext}"])
        assertExit(r, 0)
        XCTAssertEqual(written(), ["redirect.jpg"], "no leading / from an empty {dir}:\n\(r)")
    }

    /// Dot segments, an encoded slash, an encoded NUL and an encoded `..`, a hidden name, a very
    /// long component and a very deep path: all stay inside DIR, each component safe.
    func testHostilePathsStayInside() throws {
        let long = String(repeating: "L", count: 300)
        let deep = (1...40).map { "d\($0)" }.joined(separator: "/")
        let r = try prefetch([server.url("/tree/a/../../tree/etc/passwd.jpg"), server.url("/tree/x%2Fy/%2e%2e/z%00w.jpg"),
                              server.url("/tree/.ssh/\(long).jpg"), server.url("/tree/\(deep)/f.jpg"),
                              server.url("/tree/%2e%2e%2f%2e%2e%2fescape.jpg")],
                             ["--create-dirs", "--name", "{path}"])
        assertExit(r, 0)
        let files = written()
        XCTAssertEqual(files.count, 5, "\(files)\n\(r)")
        XCTAssertTrue(files.contains("tree/a/_/_/tree/etc/passwd.jpg"), "`..` is never resolved, it becomes _: \(files)")
        XCTAssertTrue(files.contains("tree/x_y/_/z_w.jpg"), "%2F stays in its component, %00 and %2e%2e become _: \(files)")
        XCTAssertTrue(files.contains("tree/_._.._escape.jpg"), "an encoded ../.. is one safe component: \(files)")
        let longName = try XCTUnwrap(files.first { $0.hasPrefix("tree/_ssh/") }, "a hidden directory becomes _ssh: \(files)")
        XCTAssertTrue(longName.hasSuffix(".jpg"), "a long name keeps its extension: \(longName)")
        XCTAssertLessThanOrEqual(longName.split(separator: "/").last!.utf8.count, 120)
        let deepName = try XCTUnwrap(files.first { $0.hasSuffix("/f.jpg") })
        XCTAssertEqual(deepName.split(separator: "/").count, 17, "at most 16 directories, then the name: \(deepName)")
        for file in regularFiles(under: out) {
            XCTAssertTrue(file.resolvingSymlinksInPath().path.hasPrefix(out.resolvingSymlinksInPath().path + "/"), file.path)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path).sorted(), ["list.txt", "out"], "nothing beside DIR")
    }

    func testNoClobberKeepsAFileFromBeforeTheRun() throws {
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let old = out.appendingPathComponent("tiny.jpg")
        try Data("from before".utf8).write(to: old)
        let r = try prefetch([imageURL("tiny.jpg"), imageURL("grey.jpg")], ["--no-clobber"])
        assertExit(r, 0)
        XCTAssertEqual(try String(contentsOf: old, encoding: .utf8), "from before", "the existing file is kept")
        _ = assertImageFile(out.appendingPathComponent("grey.jpg"), .jpeg, "a new name is written")
        let kept = try XCTUnwrap(r.json.first { $0.string("file") == old.path }, "\(r)")
        XCTAssertEqual(kept.string("status"), "ok")
        XCTAssertEqual(kept.string("output"), "kept")
        let new = try XCTUnwrap(r.json.first { $0.string("file")?.hasSuffix("grey.jpg") == true })
        XCTAssertNil(new["output"], "a file written has no \"output\": \(new)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), ["grey.jpg", "tiny.jpg"], "no temporary file left")

        // Without --no-clobber the file from before is replaced.
        assertExit(try prefetch([imageURL("tiny.jpg")], []), 0)
        _ = assertImageFile(old, .jpeg)
    }

    func testNoClobberWithOutput() throws {
        let target = file("a.jpg")
        try Data("mine".utf8).write(to: target)
        let r = try get([imageURL("tiny.jpg"), "-o", target.path, "--no-clobber", "--json"])
        assertExit(r, 0)
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "mine")
        XCTAssertEqual(singleRecord(r).string("output"), "kept")
        XCTAssertEqual(singleRecord(r).string("status"), "ok")
        // A link to a file is a file already there: kept, and so is the link.
        let link = file("link.jpg")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        assertExit(try get([imageURL("tiny.jpg"), "-o", link.path, "--no-clobber"]), 0)
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "mine")
        // A new name is written.
        let fresh = file("b.jpg")
        let w = try get([imageURL("tiny.jpg"), "-o", fresh.path, "--no-clobber", "--json"])
        assertExit(w, 0)
        _ = assertImageFile(fresh, .jpeg)
        XCTAssertNil(singleRecord(w)["output"])
    }

    /// Many runs at once for one new name: the file is created exclusively, so exactly one run
    /// writes it and every other one reports it kept; the file is always a whole image.
    func testNoClobberIsDecidedAtCreation() throws {
        let target = file("race.jpg")
        _ = try get([imageURL("photo.jpg"), "-o", file("warm.jpg").path])   // cached: the runs race on the write
        let results = ResultsBox()
        let args = ["get", "--cache-dir", cacheDir.path, imageURL("photo.jpg"), "-o", target.path, "--no-clobber", "--json"]
        let (home, work) = (home!, work!)
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            if let r = try? Imgfetch.run(args, home: home, currentDirectory: work, timeout: 30) { results.append(r) }
        }
        let all = results.all
        XCTAssertEqual(all.count, 6)
        for r in all { assertExit(r, 0) }
        let keptCount = all.filter { $0.json.first?.string("output") == "kept" }.count
        XCTAssertEqual(keptCount, 5, "one run writes, five keep:\n\(all.map(\.description).joined(separator: "\n"))")
        XCTAssertEqual(FileManager.default.contents(atPath: target.path), try E2EPaths.fixtureData("photo.jpg"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path).sorted(), ["race.jpg", "warm.jpg"], "no temporary file left")
    }

    func testCreateDirsMakesTheDirectoriesOfOutput() throws {
        let nested = work.appendingPathComponent("x/y/z/thumb.jpg")
        let without = try get([imageURL("tiny.jpg"), "-o", nested.path])
        assertExit(without, 1)
        XCTAssertTrue(without.stderr.contains("--create-dirs"), "the error names the option that makes them:\n\(without)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("x").path))
        let with = try get([imageURL("tiny.jpg"), "-o", nested.path, "--create-dirs"])
        assertExit(with, 0)
        _ = assertImageFile(nested, .jpeg)
        // A relative -o too, from the working directory.
        assertExit(try get([imageURL("tiny.jpg"), "-o", "rel/dir/t.jpg", "--create-dirs"]), 0)
        _ = assertImageFile(work.appendingPathComponent("rel/dir/t.jpg"), .jpeg)
    }

    func testIdenticalLinesWriteOneFile() throws {
        let line = "\(imageURL("tiny.jpg")) referer=https://r.example/"
        let r = try prefetch([line, imageURL("grey.jpg"), line, imageURL("tiny.jpg")], ["--create-dirs", "-f", "png"])
        assertExit(r, 0)
        // Lines 1 and 3 are the same image under the same name: one file. Line 4 differs (no
        // referer, so another entry): it gets its own name.
        XCTAssertEqual(written(), ["grey.png", "tiny-4.png", "tiny.png"], "\(r)")
        let records = r.json.filter { $0["summary"] == nil }
        XCTAssertEqual(records.count, 4)
        XCTAssertEqual(records.filter { $0.string("file") == out.appendingPathComponent("tiny.png").path }.count, 2,
                       "both identical lines name the one file")
        // With {line} in the name they are different files, as asked.
        let lines = try prefetch([line, line], ["--name", "{line}-{name}.{ext}"])
        assertExit(lines, 0)
        XCTAssertTrue(written().contains("1-tiny.jpg") && written().contains("2-tiny.jpg"), "\(written())")
    }
}

/// Results gathered from concurrent runs.
final class ResultsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [RunResult] = []
    func append(_ r: RunResult) { lock.lock(); results.append(r); lock.unlock() }
    var all: [RunResult] { lock.lock(); defer { lock.unlock() }; return results }
}
