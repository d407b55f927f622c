import Foundation
import XCTest

/// The `--json` result record of `get`.
final class JSONRecordTests: E2ETestCase {
    func testRecordOnMissThenHit() throws {
        let url = imageURL("photo.jpg")
        let out = file("out.jpg")
        let first = try get([url, "-s", "320x320", "--json", "-o", out.path])
        assertExit(first, 0)
        let a = singleRecord(first)
        XCTAssertEqual(a.string("status"), "ok", "\(a)")
        XCTAssertEqual(a.string("original_source"), url, "\(a)")
        XCTAssertEqual(a.string("source"), url, "\(a)")
        XCTAssertFalse(a.string("key")?.isEmpty ?? true, "key: \(a)")
        XCTAssertEqual(a.string("cache"), "miss", "\(a)")
        XCTAssertEqual(a.int("width"), 320, "\(a)")
        XCTAssertEqual(a.int("height"), 213, "\(a)")
        XCTAssertEqual(a.string("format"), "jpeg", "\(a)")
        XCTAssertEqual(a.int("attempts"), 1, "\(a)")
        XCTAssertNotNil(a.double("ms"), "ms: \(a)")
        XCTAssertGreaterThanOrEqual(a.double("ms") ?? -1, 0, "\(a)")
        XCTAssertEqual(a["low_data"] as? Bool, false, "\(a)")
        let written = FileManager.default.contents(atPath: out.path) ?? Data()
        XCTAssertEqual(a.int("bytes"), written.count, "bytes is the size of the delivered image: \(a)")
        assertImage(written, .jpeg, width: 320, height: 213)
        if let path = a.string("path") {
            var isDir: ObjCBool = true
            XCTAssertTrue(FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && !isDir.boolValue,
                          "path should be an existing file: \(path)")
            XCTAssertTrue(URL(fileURLWithPath: path).standardizedFileURL.path.hasPrefix(cacheDir.standardizedFileURL.path),
                          "path should be inside the cache directory \(cacheDir.path): \(path)")
        } else {
            XCTFail("no path in \(a)")
        }

        let second = try get([url, "-s", "320x320", "--json", "-o", file("out2.jpg").path])
        assertExit(second, 0)
        let b = singleRecord(second)
        XCTAssertEqual(b.string("status"), "ok", "\(b)")
        XCTAssertEqual(b.string("cache"), "hit", "\(b)")
        XCTAssertEqual(b.string("key"), a.string("key"), "same inputs, same key")
        XCTAssertEqual(b.string("path"), a.string("path"), "same cache file")
        XCTAssertEqual(b.int("width"), 320, "\(b)")
        XCTAssertEqual(b.int("height"), 213, "\(b)")
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 1, "the hit made no request")
    }

    func testC1ControlsAndBidiOverridesAreEscapedInTheRecord() throws {
        // A file name may hold them; printed raw, U+202E reverses what a terminal shows after it.
        let name = "a\u{85}b\u{202E}gpj.png"
        let source = file(name)
        try E2EPaths.fixtureData("alpha.png").write(to: source)
        let r = try get([source.path, "--json", "-o", file("o.png").path])
        assertExit(r, 0)
        XCTAssertTrue(r.stdoutText.contains("a\\u0085b\\u202egpj.png"), "escaped as \\u codes: \(r.stdoutText)")
        XCTAssertFalse(r.stdoutText.unicodeScalars.contains { $0.value == 0x85 || $0.value == 0x202E }, "never raw")
        XCTAssertEqual(singleRecord(r).string("source"), source.path, "a JSON reader reads the name back whole")
    }

    func testJSONOutputIsOnlyJSON() throws {
        let r = try get([imageURL("tiny.jpg"), "--json", "-o", file("o.jpg").path])
        assertExit(r, 0)
        let lines = r.stdoutText.split(whereSeparator: \.isNewline)
        XCTAssertEqual(lines.count, 1, "exactly one NDJSON line:\n\(r)")
        XCTAssertEqual(r.json.count, lines.count, "every stdout line is a JSON object:\n\(r)")
    }

    func testDifferentSizeGivesDifferentKey() throws {
        let url = imageURL("photo.jpg")
        let a = singleRecord(try get([url, "-s", "100", "--json", "-o", file("a.jpg").path]))
        let b = singleRecord(try get([url, "-s", "200", "--json", "-o", file("b.jpg").path]))
        XCTAssertNotNil(a.string("key"))
        XCTAssertNotNil(b.string("key"))
        XCTAssertNotEqual(a.string("key"), b.string("key"), "different processing, different key")
        XCTAssertNotEqual(a.string("path"), b.string("path"))
    }

    func testDifferentFormatGivesDifferentKey() throws {
        let url = imageURL("photo.jpg")
        let a = singleRecord(try get([url, "-s", "100", "--json", "-o", file("a.jpg").path]))
        let b = singleRecord(try get([url, "-s", "100", "--json", "-o", file("b.png").path]))
        XCTAssertNotNil(a.string("key"))
        XCTAssertNotEqual(a.string("key"), b.string("key"), "jpeg and png variants have different keys")
    }

    func testDifferentURLGivesDifferentKey() throws {
        let a = singleRecord(try get([imageURL("tiny.jpg", "v=1"), "--json", "-o", file("a.jpg").path]))
        let b = singleRecord(try get([imageURL("tiny.jpg", "v=2"), "--json", "-o", file("b.jpg").path]))
        XCTAssertNotNil(a.string("key"))
        XCTAssertNotEqual(a.string("key"), b.string("key"))
    }
}
