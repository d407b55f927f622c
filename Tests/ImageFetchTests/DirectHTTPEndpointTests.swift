@testable import ImageFetch
import XCTest

/// `DirectHTTPClient.Endpoint`: which base URLs the direct client takes (anything else is read
/// through libcurl, or refused before), and the Host header it sends (libcurl's).
final class DirectHTTPEndpointTests: XCTestCase {
    private typealias Endpoint = DirectHTTPClient.Endpoint

    func testAcceptedBasesAndTheirParts() throws {
        let cases: [(String, host: String, port: String, authority: String, path: String)] = [
            ("http://store/c/", "store", "80", "store", "/c/"),
            ("HTTP://Store.Example:8080/a/b/", "Store.Example", "8080", "Store.Example:8080", "/a/b/"),
            ("http://127.0.0.1:08080/c/", "127.0.0.1", "8080", "127.0.0.1:8080", "/c/"),
            ("http://store:80/c/", "store", "80", "store", "/c/"),
            ("http://store:/c/", "store", "80", "store", "/c/"),
            ("http://[::1]:9000/c/", "::1", "9000", "[::1]:9000", "/c/"),
            ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1", "80", "[::ffff:127.0.0.1]", "/"),
            ("http://store/a%20b/~x/", "store", "80", "store", "/a%20b/~x/"),
        ]
        for c in cases {
            let e = try XCTUnwrap(Endpoint(base: c.0), c.0)
            XCTAssertEqual([e.host, e.port, e.authority, e.basePath], [c.host, c.port, c.authority, c.path], c.0)
        }
    }

    func testRefusedBases() {
        for base in ["http://user@store/c/", "http://user:pw@store/c/", "http://store:0/c/", "http://store:65536/c/",
                     "http://store:99999/c/", "http://store:8x/c/", "http://store:80:81/c/", "http://store/c",
                     "http://store/c d/", "http://store/c\r\nX-Injected: 1/", "http://sto re/c/", "http://store\r\n/c/",
                     "http://[::1/c/", "http://[::1]x/c/", "http://[fe80::1%25eth0]/c/", "http://[]/c/", "http:///c/",
                     "http://-store/c/", "http://.store/c/", "http://store/c/?q/", "http://store/c/#f/",
                     "https://store/c/", "http:\u{0F}/store/c/", "http\u{1A}//store/c/", "httpx//store/c/"] {
            XCTAssertNil(Endpoint(base: base), base.debugDescription)
        }
    }
}
