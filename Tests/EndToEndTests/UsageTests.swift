import Foundation
import XCTest

/// Usage errors (exit 2), `--version`, `--help`.
final class UsageTests: E2ETestCase {
    private func assertUsageError(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try imgfetch(args)
        XCTAssertEqual(r.status, 2, "usage error expected:\n\(r)", file: file, line: line)
        XCTAssertFalse(r.stderrLines.isEmpty, "a message on stderr:\n\(r)", file: file, line: line)
        XCTAssertNil(ImageInfo(data: r.stdout), "no image on a usage error", file: file, line: line)
        XCTAssertEqual(try server.totalRequests(), 0, "a usage error makes no request", file: file, line: line)
    }

    func testUnknownOption() throws {
        try assertUsageError(["get", "--cache-dir", cacheDir.path, "--no-such-option", imageURL("tiny.jpg")])
    }

    func testBadSize() throws {
        try assertUsageError(["get", "--cache-dir", cacheDir.path, "-s", "abc", imageURL("tiny.jpg")])
    }

    /// A size with an `x` and no side after it (or no side at all, or a side 0) is refused, naming the
    /// value and the accepted forms; `200x` was taken as `200` (a width alone) without a word.
    func testSizeWithAnXAndAMissingOrZeroSideIsRefused() throws {
        for value in ["200x", "x", "200x0", "0x200", "x0", "+200", "200X"] {
            try assertUsageError(["get", "--cache-dir", cacheDir.path, "-s", value, imageURL("tiny.jpg")])
            let r = try imgfetch(["get", "--cache-dir", cacheDir.path, "-s", value, imageURL("tiny.jpg")])
            XCTAssertTrue(r.stderr.contains("'\(value)'") && r.stderr.contains("WxH, W or xH"),
                          "the message names '\(value)' and the forms: \(r.stderr)")
        }
        for value in ["200", "x200", "200x100", "200X100"] {
            let r = try imgfetch(["get", "--cache-dir", cacheDir.path, "-s", value, imageURL("tiny.jpg"), "-o", work.appendingPathComponent("t.jpg").path])
            XCTAssertEqual(r.status, 0, "'-s \(value)' is accepted: \(r)")
        }
    }

    func testQualityZero() throws {
        try assertUsageError(["get", "--cache-dir", cacheDir.path, "--quality", "0", imageURL("tiny.jpg")])
    }

    func testQualityAbove100() throws {
        try assertUsageError(["get", "--cache-dir", cacheDir.path, "-q", "101", imageURL("tiny.jpg")])
    }

    func testBadFit() throws {
        try assertUsageError(["get", "--cache-dir", cacheDir.path, "--fit", "sideways", imageURL("tiny.jpg")])
    }

    func testBadFormat() throws {
        try assertUsageError(["get", "--cache-dir", cacheDir.path, "-f", "nonsense", imageURL("tiny.jpg")])
    }

    func testBadMaxBytes() throws {
        try assertUsageError(["get", "--cache-dir", cacheDir.path, "--max-bytes", "lots", imageURL("tiny.jpg")])
    }

    func testOptionMissingItsValue() throws {
        try assertUsageError(["get", "--cache-dir", cacheDir.path, imageURL("tiny.jpg"), "--size"])
    }

    func testMissingSource() throws {
        try assertUsageError(["get", "--cache-dir", cacheDir.path])
    }

    func testUnknownCommand() throws {
        try assertUsageError(["frobnicate", imageURL("tiny.jpg")])
    }

    func testNoArgumentsIsAUsageError() throws {
        try assertUsageError([])
    }

    func testVersion() throws {
        let r = try imgfetch(["--version"])
        assertExit(r, 0)
        let text = r.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(text.isEmpty, "--version prints the version on stdout")
        XCTAssertNotNil(text.range(of: #"\d+\.\d+"#, options: .regularExpression), "a version number: \(text)")
    }

    func testHelp() throws {
        let r = try imgfetch(["--help"])
        assertExit(r, 0)
        let text = r.stdoutText
        XCTAssertTrue(text.contains("get"), "--help lists the commands:\n\(text)")
        XCTAssertTrue(text.contains("prefetch"), "--help lists the commands:\n\(text)")
        XCTAssertTrue(text.contains("cache"), "--help lists the commands:\n\(text)")
    }

    func testHelpCommand() throws {
        let r = try imgfetch(["help", "get"])
        assertExit(r, 0)
        XCTAssertTrue(r.stdoutText.contains("--size"), "help get describes get's options:\n\(r)")
    }
}

/// Usage errors added after review: values that would disable a limit or mix binary data into NDJSON.
final class UsageEdgeTests: E2ETestCase {
    func testMaxBytesZeroIsAUsageError() throws {
        assertExit(try get([imageURL("photo.jpg"), "--max-bytes", "0", "-o", file("o.jpg").path]), 2)
    }

    func testMaxPixelsOverflowIsAUsageError() throws {
        assertExit(try get([imageURL("photo.jpg"), "--max-pixels", "99999999999999M", "-o", file("o.jpg").path]), 2)
    }

    func testJSONWithImageOnStdoutIsAUsageError() throws {
        let r = try get([imageURL("photo.jpg"), "--json", "-o", "-"])
        assertExit(r, 2)
        XCTAssertTrue(r.stdout.isEmpty, "nothing on stdout")
    }

    func testRequestedQualityIsAppliedWithoutResizing() throws {
        let r = try get([E2EPaths.fixturesDir.appendingPathComponent("photo.jpg").path, "-f", "jpeg", "-q", "20", "-o", file("q.jpg").path])
        assertExit(r, 0)
        let original = try Data(contentsOf: E2EPaths.fixturesDir.appendingPathComponent("photo.jpg"))
        let written = try Data(contentsOf: file("q.jpg"))
        XCTAssertLessThan(written.count, original.count / 2, "re-encoded at quality 20, not the original bytes")
        assertImageFile(file("q.jpg"), .jpeg, width: 1200, height: 800)
    }
}
