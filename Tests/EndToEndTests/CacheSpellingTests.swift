import Foundation
import XCTest

/// One output, one entry, whatever spells its format: `original` that resolves to X for a source,
/// `-f X` and `-o FILE.X` find the same entry, locally and on the remote tier.
final class CacheSpellingTests: E2ETestCase {
    private func cache(_ name: String) -> String { work.appendingPathComponent(name).path }

    private func entries(_ dir: String) throws -> [[String: Any]] {
        let r = try imgfetch(["cache", "ls", "--json", "--cache-dir", dir])
        assertExit(r, 0)
        return r.json
    }

    func testAPrefetchedThumbnailIsTheOneGetWritesToAJPEGFile() throws {
        let path = imagePath("photo.jpg", "v=prefetch-first")
        let list = try writeList([server.url(path)])
        assertExit(try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-s", "64", list.path]), 0)
        let out = file("x.jpg")
        let r = try get([server.url(path), "-s", "64", "-o", out.path, "--no-keep-original", "--json"])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r)["cache"] as? String, "hit", "\(r)")
        XCTAssertEqual(try server.requestCount(path), 1, "one origin request in all")
        assertImageFile(out, .jpeg, width: 64)
        XCTAssertEqual(try entries(cacheDir.path).filter { $0.string("variant") != "original" }.count, 1, "one thumbnail entry")
    }

    func testAThumbnailGetWroteToAJPEGFileIsTheOnePrefetchFinds() throws {
        let path = imagePath("photo.jpg", "v=get-first")
        let r = try get([server.url(path), "-s", "64", "-o", file("x.jpg").path, "--no-keep-original"])
        assertExit(r, 0)
        let list = try writeList([server.url(path)])
        let p = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-s", "64", "--json", list.path])
        assertExit(p, 0)
        XCTAssertEqual(p.json.first?["cache"] as? String, "hit", "\(p)")
        XCTAssertEqual(try server.requestCount(path), 1, "one origin request in all")
        let listed = try entries(cacheDir.path)
        XCTAssertEqual(listed.count, 1, "one entry: \(listed)")
    }

    func testAJPEGWrittenToAJPEGFileIsStoredOnce() throws {
        let url = imageURL("photo.jpg", "v=once")
        assertExit(try get([url, "-o", file("y.jpg").path]), 0)
        let listed = try entries(cacheDir.path)
        XCTAssertEqual(listed.count, 1, "the source's bytes once: \(listed)")
        XCTAssertEqual(listed.first?.string("variant"), "original")
        XCTAssertEqual(try Data(contentsOf: file("y.jpg")), try E2EPaths.fixtureData("photo.jpg"))
        // And the other spellings find it: `-f jpeg` and the default.
        for extra in [["-f", "jpeg"], []] {
            let r = try get([url, "--json", "-o", file("z.img").path] + (extra.isEmpty ? ["-f", "original"] : extra))
            assertExit(r, 0)
            XCTAssertEqual(singleRecord(r)["cache"] as? String, "hit", "\(extra): \(r)")
        }
    }

    func testAnotherFormatIsAnotherEntry() throws {
        let url = imageURL("photo.jpg", "v=webp")
        assertExit(try get([url, "-s", "64", "-o", file("a.jpg").path]), 0)
        let r = try get([url, "-s", "64", "-o", file("a.webp").path, "--json"])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r)["cache"] as? String, "derived", "a WebP is made, not the JPEG served: \(r)")
        assertImageFile(file("a.webp"), .webp, width: 64)
        let png = imageURL("alpha.png", "v=png")
        assertExit(try get([png, "-s", "16", "-o", file("p.png").path]), 0)
        let j = try get([png, "-s", "16", "-o", file("p.jpg").path, "--json"])
        assertExit(j, 0)
        XCTAssertNotEqual(singleRecord(j)["cache"] as? String, "hit", "a PNG source's thumbnail is no JPEG: \(j)")
        assertImageFile(file("p.jpg"), .jpeg)
    }

    func testATierFilledByPrefetchServesGetsJPEGFile() throws {
        let store = try NginxDAVServer()
        let tier = store.url("/tier/")
        let path = imagePath("photo.jpg", "cc=max-age%3D600&v=tier")
        let list = try writeList([server.url(path)])
        assertExit(try imgfetch(["prefetch", "--cache-dir", cache("a"), "-s", "64", "--remote-cache", tier, list.path]), 0)
        let r = try get(["--cache-dir", cache("b"), server.url(path), "-s", "64", "-o", file("x.jpg").path,
                         "--no-keep-original", "--remote-cache", tier, "--json"])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r)["cache"] as? String, "remote", "\(r)")
        XCTAssertEqual(try server.requestCount(path), 1, "only the first worker asked the origin")
        assertImageFile(file("x.jpg"), .jpeg, width: 64)
    }
}
