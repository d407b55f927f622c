import Foundation
import XCTest

/// -b FILE (a Netscape cookie file) and -c FILE (the jar) as curl keeps cookies: one cookie engine
/// for the run, the jar written once at the end (0600), cookies never in the cache, and a request's
/// key that includes the cookie file's lines for its host. With the engine on (-b FILE or -c FILE),
/// every request is credentialed: a cookie a server set during the run may be sent.
final class CookieJarTests: E2ETestCase {
    private func cookieFile(_ lines: [String], name: String = "cookies.txt") throws -> URL {
        let url = file(name)
        try ("# Netscape HTTP Cookie File\n" + lines.map { $0 + "\n" }.joined()).write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    private func sentCookies(_ path: String) throws -> [String] {
        try server.requests(path).map { $0.headers["cookie"] ?? "" }
    }

    func testTheFileIsSentTheJarKeepsWhatIsSetAndTheCacheNothing() throws {
        let file = try cookieFile(["127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tfromfile-7f3a",
                                   "other.example\tFALSE\t/\tFALSE\t0\tforeign\tnot-for-this-host"])
        let jar = self.file("jar.txt")
        let query = "setcookie=fresh"
        let r = try get([imageURL("tiny.jpg", query), "-o", self.file("a.jpg").path, "-b", file.path, "-c", jar.path])
        assertExit(r, 0)
        XCTAssertEqual(try sentCookies(imagePath("tiny.jpg", query)), ["session=fromfile-7f3a"], "only the host's cookie is sent")

        let attributes = try FileManager.default.attributesOfItem(atPath: jar.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "the jar is 0600")
        let written = try String(contentsOf: jar, encoding: .utf8)
        XCTAssertTrue(written.hasPrefix("# Netscape HTTP Cookie File"), written)
        for needle in ["session\tfromfile-7f3a", "fresh\tset-by-server", "foreign\tnot-for-this-host"] {
            XCTAssertTrue(written.contains(needle), "the jar holds \(needle):\n\(written)")
        }
        XCTAssertEqual(regularFiles(under: work).filter { $0.lastPathComponent.hasPrefix(".") }, [], "no temporary file is left")

        // Nothing of either cookie is anywhere in the cache.
        for entry in regularFiles(under: cacheDir) {
            let bytes = try Data(contentsOf: entry)
            for secret in ["fromfile-7f3a", "set-by-server", "session", "Set-Cookie"] {
                XCTAssertNil(bytes.range(of: Data(secret.utf8)), "\(secret) in \(entry.path)")
            }
        }

        // The jar of one run is the cookie file of the next: both cookies go, and what a server
        // set during a run is sent by that run's later requests.
        let again = try get([imageURL("tiny.jpg", "v=2"), "-o", self.file("b.jpg").path, "-b", jar.path])
        assertExit(again, 0)
        let sent = try sentCookies(imagePath("tiny.jpg", "v=2")).first ?? ""
        XCTAssertTrue(sent.contains("session=fromfile-7f3a") && sent.contains("fresh=set-by-server"), sent)
    }

    func testTheCookieFileIsPartOfTheKeyOfItsHostAndTheEngineOfEveryHost() throws {
        let mine = try cookieFile(["127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tA"], name: "a.txt")
        let foreign = try cookieFile(["other.example\tTRUE\t/\tFALSE\t0\tsession\tB"], name: "b.txt")
        let url = imageURL("tiny.jpg", "v=key")
        assertExit(try get([url, "-o", file("1.jpg").path, "-b", mine.path]), 0)
        assertExit(try get([url, "-o", file("2.jpg").path, "-b", mine.path]), 0)
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg", "v=key")), 1, "the same cookie file: a hit")
        assertExit(try get([url, "-o", file("3.jpg").path]), 0)
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg", "v=key")), 2, "without the cookie: its own entry")
        assertExit(try get([url, "-o", file("4.jpg").path, "-b", foreign.path]), 0)
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg", "v=key")), 3, "the cookie engine on: not the anonymous entry")
        assertExit(try get([url, "-o", file("5.jpg").path, "-c", file("jar.txt").path]), 0)
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg", "v=key")), 3, "no cookie for the host in either: one entry")
    }

    /// A cookie set during the run (by a redirect) and sent to the image: with `-c FILE` alone, the
    /// logged-in image is neither stored under the anonymous key nor given to the tier.
    func testACookieSetDuringTheRunIsNeverSharedAsAnonymous() throws {
        let store = try NginxDAVServer()
        let image = imageURL("photo.jpg", "needcookie=sid&cc=max-age%3D600")
        let start = server.url("/redirect?setcookie=sid&to=" + image.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let r = try get([start, "-c", file("jar.txt").path, "--remote-cache", store.url("/t/"), "-o", file("a.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(try server.requests(imagePath("photo.jpg", "needcookie=sid&cc=max-age%3D600")).map(\.status), [200])
        XCTAssertEqual(store.requests().filter { $0.method == "PUT" }.count, 0, "a logged-in image is not public: \(store.requests())")
        let anonymous = try get([image, "-o", file("b.jpg").path])
        assertExit(anonymous, 5)   // without the cookie the server refuses it; the cache must not serve it
        XCTAssertEqual(try server.requests(imagePath("photo.jpg", "needcookie=sid&cc=max-age%3D600")).map(\.status), [200, 403])
    }

    /// A request made with the cookie engine on is credentialed: uploaded to the tier only when its
    /// response says public, whether the file has a cookie for the host or not.
    func testJarCookiesMakeARequestCredentialedForTheTier() throws {
        let store = try NginxDAVServer()
        let tier = store.url("/t/")
        let mine = try cookieFile(["127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tA"], name: "a.txt")
        let foreign = try cookieFile(["other.example\tFALSE\t/\tFALSE\t0\tsession\tB"], name: "b.txt")
        func puts() -> Int { store.requests().filter { $0.method == "PUT" }.count }
        func run(_ query: String, _ cookies: URL, _ name: String) throws {
            assertExit(try get([imageURL("photo.jpg", query), "--remote-cache", tier, "-b", cookies.path, "-o", file(name).path]), 0)
        }
        try run("cc=max-age%3D600", mine, "a.jpg")
        XCTAssertEqual(puts(), 0, "a response fetched with a cookie, not public: \(store.requests())")
        try run("cc=public%2C%20max-age%3D600", mine, "b.jpg")
        XCTAssertEqual(puts(), 2, "public: shared (image and meta)")
        try run("cc=max-age%3D600&v=2", foreign, "c.jpg")
        XCTAssertEqual(puts(), 2, "the cookie engine on: credentialed, even with no cookie for the host")
    }

    func testABadCookieFileIsAUsageErrorThatShowsNoValue() throws {
        let bad = try cookieFile(["127.0.0.1\tFALSE\t/\tFALSE\tsoon\tsession\tsecret-value-55"])
        let r = try get([imageURL("tiny.jpg"), "-b", bad.path])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("line 2"), "\(r)")
        XCTAssertFalse(r.stderr.contains("secret-value-55"), "\(r)")
        assertExit(try get([imageURL("tiny.jpg"), "-b", file("missing.txt").path]), 2)
        assertExit(try get([imageURL("tiny.jpg"), "-c", file("no/such/dir/jar.txt").path]), 2)
        XCTAssertEqual(try server.totalRequests(), 0, "refused before anything is sent")
    }
}
