import Foundation
import XCTest

/// Values that would mislead if taken as they come: a NUL or other control character in a file
/// source, a validator that is not a valid header value, a data: URL larger than --max-bytes.
final class HostileValueTests: E2ETestCase {
    // MARK: - control characters in file sources

    func testNULInFileURLIsRefusedNotTruncated() throws {
        // Without the check, the path would end at the NUL and fetch tiny.jpg itself.
        let tiny = E2EPaths.fixture("tiny.jpg").path
        let source = "file://\(tiny)%00.png"
        let r = try get([source, "-o", file("out.jpg").path])
        assertExit(r, 2)
        XCTAssertTrue(r.stderrLines.first?.contains("file://") ?? false, "the error names the source:\n\(r)")
        XCTAssertTrue(r.stderr.contains("control character"), "the error says why:\n\(r)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("out.jpg").path))
    }

    func testControlCharactersInFileSourcesAreRefused() throws {
        let dir = E2EPaths.fixture("tiny.jpg").deletingLastPathComponent().path
        for source in ["file://\(dir)/a%0Ab.jpg", "file://\(dir)/%1B%5B31mred.jpg", "\(dir)/a\u{1B}[2Jb.jpg"] {
            let r = try get([source, "-o", file("out.jpg").path])
            assertExit(r, 2)
            XCTAssertFalse(r.stderr.contains("\u{1B}"), "an escape sequence is never printed raw:\n\(r)")
            XCTAssertTrue(r.stderr.contains("control character"), "the error says why:\n\(r)")
        }
    }

    func testControlCharacterInListLineIsAMalformedLine() throws {
        let tiny = E2EPaths.fixture("tiny.jpg").path
        let list = try writeList(["\(tiny)\u{0}.png", tiny])
        let r = try imgfetch(["prefetch", list.path, "--cache-dir", cacheDir.path, "--json"])
        assertExit(r, 1)
        XCTAssertTrue(r.stderr.contains("\(list.lastPathComponent):1:") && r.stderr.contains("NUL"),
                      "line 1 is reported as holding a NUL:\n\(r)")
        let ok = r.json.filter { $0.string("status") == "ok" }
        XCTAssertEqual(ok.count, 1, "only the clean line is fetched:\n\(r)")
    }

    // MARK: - validators that are not valid header values

    func testETagWithBareCRIsNeverSentBack() throws {
        let query = "etag=%22a%0Db%22&cc=no-cache"
        assertExit(try get([imageURL("tiny.jpg", query), "-o", file("a.jpg").path]), 0)
        let r = try get([imageURL("tiny.jpg", query), "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        let log = try server.requests(imagePath("tiny.jpg", query))
        XCTAssertEqual(log.count, 2)
        XCTAssertNil(log.last?.headers["if-none-match"], "the ETag with a CR is not sent back: \(log.last?.headers ?? [:])")
        XCTAssertNotNil(log.last?.headers["if-modified-since"], "the valid Last-Modified still is")
        XCTAssertEqual(singleRecord(r).string("cache"), "revalidated")
        for meta in regularFiles(under: cacheDir) where meta.pathExtension == "meta" {
            XCTAssertFalse(try String(contentsOf: meta, encoding: .utf8).contains("\netag\t"), "not stored: \(meta.lastPathComponent)")
        }
    }

    func testLastModifiedWithBareCRIsNeverSentBack() throws {
        let query = "lm=Mon,%2001%20Jan%202024%2000:00:00%20GMT%0DX-Evil:%201&cc=no-cache"
        assertExit(try get([imageURL("tiny.jpg", query), "-o", file("a.jpg").path]), 0)
        assertExit(try get([imageURL("tiny.jpg", query), "-o", file("b.jpg").path]), 0)
        let log = try server.requests(imagePath("tiny.jpg", query))
        XCTAssertEqual(log.count, 2)
        XCTAssertNil(log.last?.headers["if-modified-since"], "\(log.last?.headers ?? [:])")
        XCTAssertNil(log.last?.headers["x-evil"])
        XCTAssertNotNil(log.last?.headers["if-none-match"], "the valid ETag still is sent")
    }

    func testTamperedStoredValidatorIsNeverSent() throws {
        let query = "cc=no-cache"
        assertExit(try get([imageURL("tiny.jpg", query), "-o", file("a.jpg").path]), 0)
        // Whoever can write the cache directory puts a CR LF (escaped as the .meta format does) into the ETag.
        for meta in regularFiles(under: cacheDir) where meta.pathExtension == "meta" {
            let text = try String(contentsOf: meta, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.hasPrefix("etag\t") ? "etag\t\"x\\r\\nX-Injected: 1\"" : String(line)
            }
            try lines.joined(separator: "\n").write(to: meta, atomically: true, encoding: .utf8)
        }
        assertExit(try get([imageURL("tiny.jpg", query), "-o", file("b.jpg").path]), 0)
        let log = try server.requests(imagePath("tiny.jpg", query))
        XCTAssertEqual(log.count, 2)
        XCTAssertNil(log.last?.headers["x-injected"], "\(log.last?.headers ?? [:])")
        XCTAssertFalse(log.last?.headers["if-none-match"]?.contains("x") ?? false, "\(log.last?.headers ?? [:])")
    }

    // MARK: - data: URLs over --max-bytes

    func testDataURLOverMaxBytesIsRefusedAsTooLarge() throws {
        // Just under the kernel's 128 KiB limit of one argument.
        let payload = Data(repeating: 0xAB, count: 90_000).base64EncodedString()
        let r = try get(["data:image/jpeg;base64,\(payload)", "--max-bytes", "10K", "--json", "-o", file("out.jpg").path])
        assertExit(r, 7)
        assertFailureRecord(r, code: "too_large")
        XCTAssertTrue(r.stderr.contains("90000 bytes"), "the message gives the size:\n\(r)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("out.jpg").path))
    }

    func testDataURLUnderMaxBytesIsDecoded() throws {
        let payload = try E2EPaths.fixtureData("tiny.jpg").base64EncodedString()
        let spaced = stride(from: 0, to: payload.count, by: 76).map { i -> String in
            let start = payload.index(payload.startIndex, offsetBy: i)
            return String(payload[start..<(payload.index(start, offsetBy: 76, limitedBy: payload.endIndex) ?? payload.endIndex)])
        }.joined(separator: "\n")  // MIME line breaks are whitespace
        let r = try get(["data:image/jpeg;base64,\(spaced)", "--max-bytes", "10K", "-o", file("out.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(try Data(contentsOf: file("out.jpg")), try E2EPaths.fixtureData("tiny.jpg"))
    }
}
