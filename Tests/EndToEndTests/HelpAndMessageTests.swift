import Foundation
import XCTest

/// What `--help` says, and how usage errors name what is wrong (issue 13).
final class HelpAndMessageTests: E2ETestCase {
    func testHelpOfNoCommandIsAUsageError() throws {
        let r = try imgfetch(["help", "nothing"])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("unknown command 'nothing'"), "\(r)")
        XCTAssertTrue(r.stdout.isEmpty, "no help text on stdout: \(r)")
        assertExit(try imgfetch(["help", "cache", "ls"]), 0)
        assertExit(try imgfetch(["help", "cache", "lss"]), 2)
    }

    func testExitCodeLinesOfGetHelpAreWholeSentences() throws {
        let text = try imgfetch(["get", "--help"]).stdoutText
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.firstIndex(where: { $0.hasPrefix("Exit codes:") }) else { return XCTFail(text) }
        // The paragraph is wrapped only at the width: every line but the last reaches past column 60.
        let paragraph = lines[first...].prefix { !$0.isEmpty }
        for line in paragraph.dropLast() { XCTAssertGreaterThan(line.count, 60, "a line broken mid-sentence: '\(line)'\n\(text)") }
        XCTAssertTrue(paragraph.joined(separator: " ").contains("3 not cached and the network may not be used"), text)
    }

    func testPrefetchHelpSaysFormatDefaultsToOriginal() throws {
        let text = try imgfetch(["prefetch", "--help"]).stdoutText
        XCTAssertFalse(text.contains("-o FILE"), "prefetch has no -o:\n\(text)")
        XCTAssertTrue(text.contains("(default: original)"), text)
    }

    func testPrefetchVerbosePrintsOneLinePerResult() throws {
        let list = try writeList([imageURL("photo.jpg"), imageURL("tiny.jpg"), server.url("/status/404")])
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-v", "-s", "50", list.path])
        assertExit(r, 1)
        let lines = r.stderrLines.filter { !$0.contains("prefetch:") && !$0.contains("timing p50/p90/p99") && !$0.contains("originals kept beside") }
        XCTAssertEqual(lines.count, 3, "one line per source:\n\(r)")
        XCTAssertEqual(lines.filter { $0.contains("miss, ") }.count, 2, "\(r)")
        XCTAssertEqual(lines.filter { $0.contains("HTTP 404") }.count, 1, "\(r)")
    }

    func testLowDataWithASeparateValueSaysItNeedsEquals() throws {
        let r = try get(["--low-data", "yes", imageURL("photo.jpg"), "-o", file("o.jpg").path])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("--low-data=yes"), "\(r)")
        XCTAssertEqual(try server.totalRequests(), 0)
    }

    func testEnvironmentErrorsNameTheVariable() throws {
        let lowData = try get([imageURL("photo.jpg"), "-o", file("o.jpg").path], env: ["IMGFETCH_LOW_DATA": "maybe"])
        assertExit(lowData, 2)
        XCTAssertTrue(lowData.stderr.contains("IMGFETCH_LOW_DATA"), "\(lowData)")
        XCTAssertFalse(lowData.stderr.contains("'--low-data'"), "\(lowData)")
        let limit = try get([imageURL("photo.jpg"), "-o", file("o.jpg").path], env: ["IMGFETCH_CACHE_SIZE_LIMIT": "lots"])
        assertExit(limit, 2)
        XCTAssertTrue(limit.stderr.contains("IMGFETCH_CACHE_SIZE_LIMIT"), "\(limit)")
    }

    func testNoMessageNamesItsSourceTwice() throws {
        let missing = file("missing.jpg").path
        let cases: [(args: [String], source: String)] = [
            (["ftp://x/y.jpg"], "ftp://x/y.jpg"),
            ([missing], missing),
            ([missing, "--alt", file("other.jpg").path], missing),
            (["--alt", "ftp://a/b", missing], "ftp://a/b"),
        ]
        for (args, source) in cases {
            let r = try get(args + ["-o", file("o.jpg").path])
            XCTAssertNotEqual(r.status, 0)
            XCTAssertEqual(r.stderr.components(separatedBy: source).count - 1, 1, "'\(source)' named once:\n\(r)")
        }
    }

    func testEmptyHomeIsSkipped() throws {
        let r = try imgfetch(["cache", "path"], env: ["HOME": "", "XDG_CACHE_HOME": ""])
        assertExit(r, 0)
        let path = r.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertNotEqual(path, "/.cache/imgfetch")
        XCTAssertTrue(path.hasPrefix("/") && path.hasSuffix("/.cache/imgfetch") && path.count > "/.cache/imgfetch".count, path)
    }

    func testCacheLsSortOfAnUnknownFieldIsAUsageError() throws {
        let r = try imgfetch(["cache", "ls", "--cache-dir", cacheDir.path, "--sort", "bogus"])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("bogus"), "\(r)")
        assertExit(try imgfetch(["cache", "ls", "--cache-dir", cacheDir.path, "--sort", "size"]), 0)
    }

    /// curl's and wget's options typed out of habit get what imgfetch does instead (exit 2, stdout
    /// empty); -c keeps its meaning (curl's cookie jar): only without a value does it mention wget's.
    func testCurlAndWgetOptionsNameWhatImgfetchDoesInstead() throws {
        let source = imageURL("tiny.jpg")
        let expected: [(args: [String], hint: String)] = [
            (["-L"], "unknown option '-L': imgfetch follows redirects itself"),
            (["-O"], "unknown option '-O': -o FILE names the output"),
            (["--wait", "1"], "unknown option '--wait': see --rate"),
            (["-nc"], "unknown option '-nc': see --no-clobber"),
            (["--continue"], "unknown option '--continue': partial downloads resume by themselves"),
        ]
        for (args, hint) in expected {
            let r = try imgfetch(["get", "--cache-dir", cacheDir.path] + args + [source, "-o", file("o.jpg").path])
            assertExit(r, 2)
            XCTAssertEqual(r.stdout, Data(), "\(args)")
            XCTAssertTrue(r.stderr.contains(hint), "\(args): \(r.stderr)")
        }
        let c = try imgfetch(["get", "--cache-dir", cacheDir.path, source, "-o", file("o.jpg").path, "-c"])
        assertExit(c, 2)
        XCTAssertTrue(c.stderr.contains("-c FILE is the cookie jar") && c.stderr.contains("partial downloads resume by themselves"), c.stderr)
        let jar = try imgfetch(["get", "--cache-dir", cacheDir.path, source, "-o", file("o.jpg").path, "-c", file("jar.txt").path])
        assertExit(jar, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file("jar.txt").path), "-c FILE is still the cookie jar")
    }
}

/// `imgfetch --version` names the libcurl and libvips it finds and their features, like `curl -V`.
final class VersionTests: E2ETestCase {
    func tool(_ path: String, _ args: [String]) -> String? {
        guard FileManager.default.isExecutableFile(atPath: path) else { return nil }
        let r = ProcessRunner.run(URL(fileURLWithPath: path), args, environment: ProcessInfo.processInfo.environment)
        return r.status == 0 ? r.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) : nil
    }

    func testVersionNamesTheLibrariesFoundAndTheirFeatures() throws {
        let r = try imgfetch(["--version"])
        assertExit(r, 0)
        let lines = r.stdoutText.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.hasPrefix("imgfetch ") ?? false, r.stdoutText)
        guard let curl = lines.first(where: { $0.hasPrefix("libcurl ") }),
              let vips = lines.first(where: { $0.hasPrefix("libvips ") }),
              let features = lines.first(where: { $0.hasPrefix("Features: ") }) else {
            return XCTFail("libcurl, libvips and Features lines:\n\(r.stdoutText)")
        }
        // The same versions the development packages report (the binary dlopens those libraries).
        if let expected = tool("/usr/bin/curl-config", ["--version"]) {
            XCTAssertTrue(curl.hasPrefix(expected + " "), "\(curl) vs curl-config's \(expected)")
            let http2 = tool("/usr/bin/curl-config", ["--features"])?.split(separator: "\n").contains("HTTP2") ?? false
            XCTAssertEqual(features.split(separator: " ").contains("HTTP2"), http2, features)
        }
        if let expected = tool("/usr/bin/pkg-config", ["--modversion", "vips"]) {
            XCTAssertEqual(vips, "libvips " + expected)
        }
        let named = (features + " " + (lines.first { $0.hasPrefix("Missing: ") } ?? "")).split(separator: " ").map(String.init)
        for feature in ["HTTP2", "AVIF", "HEIF", "JXL"] { XCTAssertTrue(named.contains(feature), "\(feature) is reported:\n\(r.stdoutText)") }
        if features.contains("JXL") {
            XCTAssertTrue(features.contains(" JXL (input, with --allow-jxl)"), "a JXL source needs --allow-jxl, and JXL is never written: \(features)")
        }
    }
}
