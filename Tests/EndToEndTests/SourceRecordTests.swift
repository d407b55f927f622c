import Foundation
import XCTest

/// Records carry the source as it was loaded: `source_sha256` (what `sha256sum` says of the file the
/// server sent), `source_width`, `source_height` (before the resize), on a miss and on a hit.
final class SourceRecordTests: E2ETestCase {
    /// `sha256sum FILE`'s hash, as a user checks it.
    private func sha256sum(_ url: URL) throws -> String {
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/sha256sum"), [url.path], environment: [:])
        XCTAssertEqual(r.status, 0, "sha256sum: \(r)")
        return String(r.stdoutText.prefix(64))
    }

    func testGetRecordsTheSourceHashAndSizeOnAMissAndOnAHit() throws {
        let served = try sha256sum(E2EPaths.fixture("photo.jpg"))
        let source = try XCTUnwrap(ImageInfo(data: try E2EPaths.fixtureData("photo.jpg")))
        let url = imageURL("photo.jpg")
        let miss = singleRecord(try get([url, "-s", "320x320", "--json", "-o", file("a.jpg").path]))
        XCTAssertEqual(miss.string("cache"), "miss", "\(miss)")
        XCTAssertEqual(miss.int("width"), 320, "resized: \(miss)")
        XCTAssertEqual(miss.string("source_sha256"), served, "the served bytes' hash: \(miss)")
        XCTAssertEqual(miss.int("source_width"), source.width, "before the resize: \(miss)")
        XCTAssertEqual(miss.int("source_height"), source.height, "before the resize: \(miss)")
        XCTAssertNotEqual(miss.int("source_width"), 320)

        let hit = singleRecord(try get([url, "-s", "320x320", "--json", "-o", file("b.jpg").path]))
        XCTAssertEqual(hit.string("cache"), "hit", "\(hit)")
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 1, "the hit sent nothing")
        XCTAssertEqual(hit.string("source_sha256"), served, "as stored when the entry was made: \(hit)")
        XCTAssertEqual(hit.int("source_width"), source.width, "\(hit)")
        XCTAssertEqual(hit.int("source_height"), source.height, "\(hit)")

        // Another size from the kept original: no request, the same source.
        let derived = singleRecord(try get([url, "-s", "100x100", "--json", "-o", file("c.jpg").path]))
        XCTAssertEqual(derived.string("cache"), "derived", "\(derived)")
        XCTAssertEqual(derived.string("source_sha256"), served, "\(derived)")
        XCTAssertEqual(derived.int("source_width"), source.width, "\(derived)")
    }

    func testPrefetchRecordsCarryTheSourceOfEachLine() throws {
        let names = ["photo.jpg", "alpha.png"]
        let list = try writeList(names.map { imageURL($0) })
        for round in ["miss", "hit"] {
            let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-s", "64x64", "--json", list.path])
            assertExit(r, 0)
            let records = r.json.filter { $0["summary"] == nil }
            XCTAssertEqual(records.count, 2, "\(r)")
            for record in records {
                let name = names[(record.int("line") ?? 1) - 1]
                let info = try XCTUnwrap(ImageInfo(data: try E2EPaths.fixtureData(name)))
                XCTAssertEqual(record.string("cache"), round, "\(record)")
                XCTAssertEqual(record.string("source_sha256"), try sha256sum(E2EPaths.fixture(name)), "\(name): \(record)")
                XCTAssertEqual(record.int("source_width"), info.width, "\(name): \(record)")
                XCTAssertEqual(record.int("source_height"), info.height, "\(name): \(record)")
            }
        }
    }
}
