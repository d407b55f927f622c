import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The cache directory is data, never code, and never a way to reach files outside it: no shared
/// object in it is loaded, no symbolic link in it is followed, and nothing but its own entries is
/// ever removed (a directory without `CACHEDIR.TAG` that holds anything else is refused).
final class CacheTrustTests: E2ETestCase {
    private var v1: URL { cacheDir.appendingPathComponent("v1") }
    private let fm = FileManager.default

    private func cache(_ args: [String]) throws -> RunResult {
        try imgfetch(["cache"] + args + ["--cache-dir", cacheDir.path])
    }

    private func write(_ text: String, _ url: URL) throws {
        try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    private func exists(_ url: URL) -> Bool { fm.fileExists(atPath: url.path) }

    /// Whether `url` is itself a symbolic link (whatever its target).
    private func isLink(_ url: URL) -> Bool {
        var st = stat()
        return lstat(url.path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }

    /// A cache with one entry (tiny.jpg's original), made by imgfetch itself.
    private func populate() throws {
        assertExit(try get([imageURL("tiny.jpg")]), 0)  // to stdout: the original only
    }

    // MARK: - no code from the cache

    /// The directory libvips takes its modules from when `$VIPSHOME` is `home`: `home/<libdir's basename>/vips-modules-M.m`.
    private func moduleDirectory(under home: URL) throws -> URL {
        let libdirs = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
        for dir in libdirs {
            let url = URL(fileURLWithPath: dir)
            guard let names = try? fm.contentsOfDirectory(atPath: dir),
                  let modules = names.first(where: { $0.hasPrefix("vips-modules-") }) else { continue }
            return home.appendingPathComponent(url.lastPathComponent).appendingPathComponent(modules)
        }
        throw XCTSkip("no libvips module directory found in \(libdirs)")
    }

    /// Builds a shared object whose constructor creates `marker`.
    private func plantableObject(marker: URL) throws -> URL {
        let source = file("planted.c"), object = file("planted.so")
        try write("""
            #include <fcntl.h>
            #include <unistd.h>
            __attribute__((constructor)) static void planted(void) {
                int fd = open("\(marker.path)", O_WRONLY | O_CREAT, 0644);
                if (fd >= 0) close(fd);
            }
            """, source)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        cc.arguments = ["cc", "-shared", "-fPIC", "-o", object.path, source.path]
        try cc.run()
        cc.waitUntilExit()
        guard cc.terminationStatus == 0 else { throw XCTSkip("cannot build a shared object with cc") }
        return object
    }

    func testSharedObjectsPlantedInTheCacheAreNeverLoaded() throws {
        let marker = file("constructor-ran")
        let object = try plantableObject(marker: marker)
        try populate()
        let legacy = try moduleDirectory(under: v1.appendingPathComponent("vips"))
        let places = [legacy.appendingPathComponent("vips-heif.so"), legacy.appendingPathComponent("planted.so"),
                      cacheDir.appendingPathComponent("planted.so"), v1.appendingPathComponent("planted.so"),
                      try moduleDirectory(under: cacheDir).appendingPathComponent("planted.so"),
                      try moduleDirectory(under: v1).appendingPathComponent("planted.so")]
        for place in places {
            try fm.createDirectory(at: place.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fm.copyItem(at: object, to: place)
        }

        // The control: libvips does load the planted object from the old location when told to (a
        // TIFF source: libvips decodes it; a PNG made into WebP loads no libvips at all).
        let told = try get([imageURL("blue.tiff"), "-f", "webp", "-o", file("told.webp").path],
                           env: ["VIPSHOME": v1.appendingPathComponent("vips").path])
        assertExit(told, 0)
        XCTAssertTrue(exists(marker), "the planted object is loadable where an earlier imgfetch pointed libvips")
        try? fm.removeItem(at: marker)

        for format in ["webp", "avif", "png"] {
            let out = file("out.\(format)")
            // A TIFF source, so libvips decodes every one of them (and saves the AVIF).
            let r = try get([imageURL("blue.tiff", "f=\(format)"), "-s", "40", "-f", format, "-o", out.path])
            assertExit(r, 0)
            XCTAssertFalse(exists(marker), "no shared object in the cache ran (-f \(format))")
        }
        assertImageFile(file("out.avif"), .avif, width: 40)
        assertImageFile(file("out.webp"), .webp, width: 40)
        let verify = try cache(["verify"])
        XCTAssertFalse(exists(marker), "cache verify (which decodes with libvips) loads no planted object either:\n\(verify)")
    }

    // MARK: - CACHEDIR.TAG

    func testANewCacheDirectoryIsTagged() throws {
        try populate()
        let tag = try String(contentsOf: cacheDir.appendingPathComponent("CACHEDIR.TAG"), encoding: .utf8)
        XCTAssertEqual(tag.split(separator: "\n", omittingEmptySubsequences: false).first,
                       "Signature: 8a477f597d28d172789f06886806bc55", "the spec's first line, exactly:\n\(tag)")
    }

    /// A directory that merely has a `v1/` folder (not made by imgfetch) loses nothing.
    func testRemovalCommandsRefuseAnUntaggedDirectoryOfOtherFiles() throws {
        let theirs = [v1.appendingPathComponent("ab/notes.txt"), v1.appendingPathComponent("tmp/draft.txt"),
                      cacheDir.appendingPathComponent("README")]
        for url in theirs { try write("keep me\n", url) }
        for args in [["clear"], ["prune"], ["prune", "--max-size", "0"], ["verify", "--repair"], ["rm", imageURL("tiny.jpg")]] {
            let r = try cache(args)
            assertExit(r, 4)
            XCTAssertTrue(r.stderr.contains("CACHEDIR.TAG"), "says why (cache \(args.joined(separator: " "))):\n\(r)")
            for url in theirs { XCTAssertTrue(exists(url), "cache \(args.joined(separator: " ")) left \(url.path)") }
        }
        XCTAssertFalse(exists(cacheDir.appendingPathComponent("CACHEDIR.TAG")), "a directory of other files is not tagged")
        assertExit(try cache(["ls"]), 0)  // reading is still allowed
    }

    /// An entry-like file among foreign ones is no reason to trust the directory either.
    func testAnUntaggedDirectoryWithOneForeignFileIsRefused() throws {
        try populate()
        try fm.removeItem(at: cacheDir.appendingPathComponent("CACHEDIR.TAG"))
        let theirs = v1.appendingPathComponent("tmp/notes.txt")
        try write("keep me\n", theirs)
        let r = try cache(["clear"])
        assertExit(r, 4)
        XCTAssertTrue(r.stderr.contains("v1/tmp/notes.txt"), "names the file that is not imgfetch's:\n\(r)")
        XCTAssertEqual(try cache(["ls", "--json"]).json.count, 1, "nothing removed")
    }

    /// A cache an earlier imgfetch made (no tag, a `v1/vips` module directory) is adopted by the next command.
    func testACacheMadeByAnEarlierImgfetchIsAdopted() throws {
        try populate()
        let tag = cacheDir.appendingPathComponent("CACHEDIR.TAG")
        try fm.removeItem(at: tag)
        let legacy = try moduleDirectory(under: v1.appendingPathComponent("vips"))
        try fm.createDirectory(at: legacy, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: legacy.appendingPathComponent("vips-heif.so").path,
                                  withDestinationPath: "/usr/lib/x86_64-linux-gnu/vips-modules-8.14/vips-heif.so")
        try Data(repeating: 7, count: 32).write(to: v1.appendingPathComponent("secret"))  // a credential secret is imgfetch's too
        assertExit(try cache(["stats"]), 0)
        XCTAssertTrue(exists(tag), "the next command tags it")
        let clear = try cache(["clear"])
        assertExit(clear, 0)
        XCTAssertEqual(clear.stderr, "imgfetch: removed 1 entry\n")
        XCTAssertTrue(exists(v1.appendingPathComponent("secret")), "clear removes entries only")
    }

    /// Even in a tagged cache, only files named as entries are removed.
    func testClearRemovesOnlyEntries() throws {
        try populate()
        let others = [v1.appendingPathComponent("ab/notes.txt"), v1.appendingPathComponent("zz/x.jpg"),
                      v1.appendingPathComponent("tmp/draft.txt"), cacheDir.appendingPathComponent("mine.txt")]
        for url in others { try write("keep me\n", url) }
        let clear = try cache(["clear"])
        assertExit(clear, 0)
        XCTAssertEqual(clear.stderr, "imgfetch: removed 1 entry\n")
        for url in others { XCTAssertTrue(exists(url), "cache clear left \(url.path)") }
        XCTAssertEqual(try cache(["ls", "--json"]).json.count, 0)
    }

    // MARK: - symbolic links are never followed

    /// A directory outside the cache with files a follower of links would remove.
    private func victimDirectory(_ name: String, shard: String = "ab") throws -> (URL, [URL]) {
        let dir = root.appendingPathComponent(name)
        let files = [dir.appendingPathComponent("notes.txt"), dir.appendingPathComponent(".tmp-1-2"),
                     dir.appendingPathComponent(shard + String(repeating: "0", count: 62) + ".meta"),
                     dir.appendingPathComponent(shard + String(repeating: "0", count: 62) + ".jpg")]
        for url in files { try write("keep me\n", url) }
        return (dir, files)
    }

    func testClearNeverFollowsALinkAtTmpOrAShard() throws {
        try populate()
        let (tmpTarget, tmpFiles) = try victimDirectory("tmp-target")
        let (shardTarget, shardFiles) = try victimDirectory("shard-target")
        try fm.removeItem(at: v1.appendingPathComponent("tmp"))
        try fm.createSymbolicLink(at: v1.appendingPathComponent("tmp"), withDestinationURL: tmpTarget)
        try fm.createSymbolicLink(at: v1.appendingPathComponent("ab"), withDestinationURL: shardTarget)
        let clear = try cache(["clear"])
        assertExit(clear, 0)
        for url in tmpFiles + shardFiles { XCTAssertTrue(exists(url), "cache clear left \(url.path)") }
        for args in [["prune", "--max-size", "0"], ["verify", "--repair"]] {
            _ = try cache(args)
            for url in tmpFiles + shardFiles { XCTAssertTrue(exists(url), "cache \(args.joined(separator: " ")) left \(url.path)") }
        }
    }

    /// A link where `v1/tmp` should be: a store cannot use the cache (exit 4, naming it), the image is
    /// still delivered, and nothing is written through the link.
    func testStoreRefusesALinkAtTmp() throws {
        try populate()
        let (target, _) = try victimDirectory("tmp-target")
        try fm.removeItem(at: v1.appendingPathComponent("tmp"))
        try fm.createSymbolicLink(at: v1.appendingPathComponent("tmp"), withDestinationURL: target)
        let out = file("photo.jpg")
        let r = try get([imageURL("photo.jpg"), "-s", "100", "-o", out.path])
        assertExit(r, 4)
        XCTAssertTrue(r.stderr.contains("v1/tmp"), "names the link:\n\(r)")
        XCTAssertTrue(r.stderr.contains("symbolic link"), "says what is wrong:\n\(r)")
        assertImageFile(out, .jpeg, width: 100)
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: target.path).count, 4, "nothing written through the link")
    }

    func testLinksAtUsageAndLockAreNeitherWrittenNorCreated() throws {
        try populate()
        let precious = root.appendingPathComponent("precious.txt")
        try write("precious\n", precious)
        let absent = root.appendingPathComponent("would-be-created")
        try? fm.removeItem(at: v1.appendingPathComponent("usage"))
        try? fm.removeItem(at: v1.appendingPathComponent("lock"))
        try fm.createSymbolicLink(at: v1.appendingPathComponent("usage"), withDestinationURL: precious)
        try fm.createSymbolicLink(at: v1.appendingPathComponent("lock"), withDestinationURL: absent)
        for (i, name) in ["photo.jpg", "alpha.png", "portrait.jpg"].enumerated() {
            assertExit(try get([imageURL(name), "-s", "50", "--cache-size-limit", "60K", "-o", file("\(i).png").path]), 0)
        }
        assertExit(try cache(["prune", "--max-size", "1K"]), 0)
        assertExit(try cache(["clear"]), 0)
        XCTAssertEqual(try String(contentsOf: precious, encoding: .utf8), "precious\n", "the link's target is not written")
        XCTAssertFalse(exists(absent), "the lock link's target is not created")
        XCTAssertTrue(isLink(v1.appendingPathComponent("usage")), "the link is left as it is")
    }

    /// An entry file that is a link (to a valid entry elsewhere) is never read through: a miss.
    func testAnEntryThatIsALinkIsNotServed() throws {
        try populate()
        guard let entry = try cache(["ls", "--json"]).json.first, let path = entry.string("path"),
              let key = entry.string("key") else { return XCTFail("no entry") }
        let shard = URL(fileURLWithPath: path).deletingLastPathComponent()
        let elsewhere = root.appendingPathComponent("elsewhere")
        try fm.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        for name in [key + ".meta", URL(fileURLWithPath: path).lastPathComponent] {
            try fm.moveItem(at: shard.appendingPathComponent(name), to: elsewhere.appendingPathComponent(name))
            try fm.createSymbolicLink(at: shard.appendingPathComponent(name), withDestinationURL: elsewhere.appendingPathComponent(name))
        }
        let r = try get([imageURL("tiny.jpg"), "--offline"])
        assertExit(r, 3)
        XCTAssertEqual(try cache(["ls", "--json"]).json.count, 0, "a linked entry is not listed")
    }
}
