import Foundation
import XCTest

/// Low-data mode's `Save-Data: on`, seen on the wire: sent to origins in low-data mode only (not
/// with `--no-save-data`), and a response that says `Vary: Save-Data` reused only by requests that
/// send it alike (RFC 9111 §4.1).
final class SaveDataTests: E2ETestCase {
    private func saveDataHeaders(_ path: String) throws -> [String?] {
        try server.requests(path).map { $0.headers["save-data"] }
    }

    func testSaveDataGoesToTheOriginInLowDataModeOnly() throws {
        let low = imagePath("photo.jpg", "v=low"), plain = imagePath("photo.jpg", "v=plain"), off = imagePath("photo.jpg", "v=off")
        assertExit(try get([server.url(low), "--low-data", "-o", file("a.jpg").path]), 0)
        assertExit(try get([server.url(plain), "-o", file("b.jpg").path]), 0)
        assertExit(try get([server.url(off), "--low-data", "--no-save-data", "-o", file("c.jpg").path]), 0)
        assertExit(try get([server.url(off) + "&env=1", "-o", file("d.jpg").path], env: ["IMGFETCH_LOW_DATA": "1"]), 0)
        XCTAssertEqual(try saveDataHeaders(low), ["on"])
        XCTAssertEqual(try saveDataHeaders(plain), [nil])
        XCTAssertEqual(try saveDataHeaders(off), [nil], "--no-save-data leaves it out")
        XCTAssertEqual(try saveDataHeaders(off + "&env=1"), ["on"], "IMGFETCH_LOW_DATA=1 is low-data mode too")
    }

    func testAVaryingResponseIsReusedOnlyByRequestsThatSendItAlike() throws {
        let varying = imageURL("photo.jpg", "vary=Save-Data&cc=max-age=600")
        assertExit(try get([varying, "--low-data", "-o", file("a.jpg").path]), 0)
        let again = try get([varying, "--low-data", "--json", "-o", file("b.jpg").path])
        XCTAssertEqual(singleRecord(again).string("cache"), "hit", "the same Save-Data: the entry is reused")
        let plain = try get([varying, "--json", "-o", file("c.jpg").path])
        XCTAssertNotEqual(singleRecord(plain).string("cache"), "hit", "Vary: Save-Data selects another response")
        XCTAssertEqual(try saveDataHeaders(imagePath("photo.jpg", "vary=Save-Data&cc=max-age=600")).count, 2)

        let same = imageURL("photo.jpg", "cc=max-age=600")
        assertExit(try get([same, "--low-data", "-o", file("d.jpg").path]), 0)
        let hit = try get([same, "--json", "-o", file("e.jpg").path])
        XCTAssertEqual(singleRecord(hit).string("cache"), "hit", "no Vary: the response is the same, Save-Data or not")
    }
}
