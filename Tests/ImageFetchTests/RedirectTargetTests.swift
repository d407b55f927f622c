import XCTest
@testable import ImageFetch

/// `Location` resolution (RFC 3986 §5.2) and the schemes a redirect may lead to.
final class RedirectTargetTests: XCTestCase {
    let base = Source.http("http://example.com/a/b/c.jpg?x=1")

    private func target(_ location: String) throws -> String {
        try Source.redirectTarget(location, from: base).identity
    }

    func testReferenceForms() throws {
        XCTAssertEqual(try target("https://cdn.example.org/i.png"), "https://cdn.example.org/i.png")
        XCTAssertEqual(try target("//cdn.example.org/i.png"), "http://cdn.example.org/i.png")
        XCTAssertEqual(try target("/root.png"), "http://example.com/root.png")
        XCTAssertEqual(try target("d.png"), "http://example.com/a/b/d.png")
        XCTAssertEqual(try target("../d.png?y=2"), "http://example.com/a/d.png?y=2")
        XCTAssertEqual(try target("./d.png"), "http://example.com/a/b/d.png")
        XCTAssertEqual(try target("?y=2"), "http://example.com/a/b/c.jpg?y=2")
        XCTAssertEqual(try target("../../../../d.png"), "http://example.com/d.png")
        XCTAssertEqual(try target("HTTP://Example.COM/E.png"), "http://example.com/E.png")
    }

    func testOtherSchemesAndBrokenLocationsAreRefused() {
        for location in ["file:///etc/passwd", "ftp://example.com/x", "data:image/png;base64,AAAA", "", "/a b", "/a\nb",
                         "http://", "javascript:alert(1)"] {
            XCTAssertThrowsError(try target(location), location) { error in
                guard case .redirectRefused = error as? FetchError else { return XCTFail("\(location): \(error)") }
            }
        }
    }

    func testARedirectHasItsOwnKey() {
        XCTAssertNotEqual(try? CacheKey(responseOf: base, credentials: .ephemeral), CacheKey(source: base, processing: .original))
    }
}
