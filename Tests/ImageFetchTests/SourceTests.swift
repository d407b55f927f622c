import Foundation
import XCTest
@testable import ImageFetch

final class SourceTests: XCTestCase {
    private func parse(_ text: String, cwd: String? = "/home/user/pics") throws -> Source {
        try Source(parsing: text, currentDirectory: cwd)
    }

    private func assertInvalid(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let source = try Source(parsing: text, currentDirectory: "/tmp")
            XCTFail("\(text) parsed as \(source)", file: file, line: line)
        } catch {
            guard case .invalidSource = error else {
                return XCTFail("\(text): expected invalidSource, got \(error)", file: file, line: line)
            }
        }
    }

    // MARK: - http(s)

    func testARefusedURLNeverShowsAPasswordHoldingASlash() {
        for text in ["http://user:pa/ss?w#rd@exa mple.com/a.jpg", "https://tok/en@\u{1}host/"] {
            do {
                _ = try Source(parsing: text)
                XCTFail("accepted \(text)")
            } catch {
                XCTAssertFalse(error.message.contains("ss?w") || error.message.contains("tok/en"), error.message)
            }
        }
    }

    func testHTTPURLIsKept() throws {
        XCTAssertEqual(try parse("https://example.com/a/b.jpg?x=1"), .http("https://example.com/a/b.jpg?x=1"))
        XCTAssertEqual(try parse("http://example.com:8080/img.png"), .http("http://example.com:8080/img.png"))
    }

    func testSchemeAndHostAreLowercasedButPathIsNot() throws {
        XCTAssertEqual(try parse("HTTPS://Example.COM/Some/Path.JPG"), .http("https://example.com/Some/Path.JPG"))
        XCTAssertEqual(try parse("Http://IMG.example.org/X"), .http("http://img.example.org/X"))
    }

    func testFragmentIsDropped() throws {
        XCTAssertEqual(try parse("https://example.com/a.png#section"), .http("https://example.com/a.png"))
        XCTAssertEqual(try parse("https://example.com/a.png?q=1#frag"), .http("https://example.com/a.png?q=1"))
    }

    func testRootPathIsAdded() throws {
        XCTAssertEqual(try parse("https://example.com"), .http("https://example.com/"))
        XCTAssertEqual(try parse("https://example.com?q=1"), .http("https://example.com/?q=1"))
        XCTAssertEqual(try parse("https://Example.com#top"), .http("https://example.com/"))
    }

    func testPortsUserInfoAndIPv6Literals() throws {
        XCTAssertEqual(try parse("http://user@Example.com:8080"), .http("http://user@example.com:8080/"))
        XCTAssertEqual(try parse("http://[::1]:8080/a.png"), .http("http://[::1]:8080/a.png"))
        XCTAssertEqual(try parse("https://127.0.0.1/a.png"), .http("https://127.0.0.1/a.png"))
    }

    func testEquivalentURLsShareIdentityAndKey() throws {
        let a = try parse("HTTPS://Example.com#x")
        let b = try parse("https://example.com/")
        XCTAssertEqual(a.identity, b.identity)
        XCTAssertEqual(CacheKey(source: a, processing: .original), CacheKey(source: b, processing: .original))
        XCTAssertTrue(a.isNetwork)
    }

    // MARK: - files

    func testFileURL() throws {
        XCTAssertEqual(try parse("file:///var/img/a.png"), .file(path: "/var/img/a.png"))
        XCTAssertEqual(try parse("file:///var/img/a%20b.png"), .file(path: "/var/img/a b.png"))
        XCTAssertEqual(try parse("file:///var/img/a.png").identity, "file:///var/img/a.png")
        XCTAssertFalse(try parse("file:///var/img/a.png").isNetwork)
    }

    func testFileURLWithoutAbsolutePathIsInvalid() {
        assertInvalid("file://relative/a.png")
        assertInvalid("file:///bad%zzescape.png")
    }

    func testAbsolutePathIsNormalized() throws {
        XCTAssertEqual(try parse("/var/img/a.png"), .file(path: "/var/img/a.png"))
        XCTAssertEqual(try parse("/var//img/./a.png"), .file(path: "/var/img/a.png"))
        XCTAssertEqual(try parse("/var/img/../other/a.png"), .file(path: "/var/other/a.png"))
        XCTAssertEqual(try parse("/../../a.png"), .file(path: "/a.png"))
    }

    func testRelativePathIsResolvedAgainstCurrentDirectory() throws {
        XCTAssertEqual(try parse("a.png"), .file(path: "/home/user/pics/a.png"))
        XCTAssertEqual(try parse("./sub/a.png"), .file(path: "/home/user/pics/sub/a.png"))
        XCTAssertEqual(try parse("../a.png"), .file(path: "/home/user/a.png"))
        XCTAssertEqual(try parse("../../../../../a.png"), .file(path: "/a.png"))
        XCTAssertEqual(try parse("a.png", cwd: "/srv/"), .file(path: "/srv/a.png"))
    }

    func testRelativePathDefaultsToProcessCurrentDirectory() throws {
        let cwd = FileManager.default.currentDirectoryPath
        XCTAssertEqual(try Source(parsing: "x.png"), .file(path: Source.normalizePath(cwd + "/x.png")))
    }

    // MARK: - data: URLs

    func testBase64DataURL() throws {
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF]
        let b64 = Data(bytes).base64EncodedString()
        let source = try parse("data:image/PNG;base64,\(b64)")
        XCTAssertEqual(source, .data(mediaType: "image/png", bytes: bytes))
    }

    func testBase64DataURLToleratesWhitespace() throws {
        XCTAssertEqual(try parse("data:image/gif;base64,aGVs\nbG8="), .data(mediaType: "image/gif", bytes: Array("hello".utf8)))
    }

    func testPercentEncodedDataURL() throws {
        XCTAssertEqual(try parse("data:image/svg+xml,%3Csvg%2F%3E"), .data(mediaType: "image/svg+xml", bytes: Array("<svg/>".utf8)))
        XCTAssertEqual(try parse("data:,hello%20world"), .data(mediaType: "application/octet-stream", bytes: Array("hello world".utf8)))
    }

    /// RFC 2397: the percent-encoded form carries arbitrary octets, not only UTF-8 text (e.g. a PNG signature).
    func testPercentEncodedDataURLCarriesBinaryOctets() throws {
        XCTAssertEqual(try parse("data:image/png,%89PNG%0D%0A%1A%0A"),
                       .data(mediaType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    }

    func testDataIdentityIsDigestNotText() throws {
        let payload = [UInt8](repeating: 0xAB, count: 3000)
        let b64 = Data(payload).base64EncodedString()
        let source = try parse("data:image/jpeg;base64,\(b64)")
        XCTAssertFalse(source.identity.contains(b64))
        XCTAssertFalse(source.identity.contains(String(b64.prefix(16))))
        XCTAssertEqual(source.identity, "data:image/jpeg;sha256=\(SHA256.hex(payload))")
        XCTAssertFalse(source.description.contains(String(b64.prefix(16))))
        XCTAssertTrue(source.description.contains("3000 bytes"))
        // Same bytes, different spelling (whitespace) → same identity.
        let spaced = try parse("data:image/jpeg;base64,\(b64.prefix(8))\n\(b64.dropFirst(8))")
        XCTAssertEqual(spaced.identity, source.identity)
    }

    // MARK: - invalid

    func testInvalidSources() {
        assertInvalid("ftp://x")
        assertInvalid("ftp://example.com/a.png")
        assertInvalid("")
        assertInvalid("http://")
        assertInvalid("https://")
        assertInvalid("https:///path-only.png")
        assertInvalid("http://:8080/a.png")
        assertInvalid("http://exa mple.com/a.png")
        assertInvalid("data:image/png;base64,@@@not*base64@@@")
        assertInvalid("data:image/png;base64")
        assertInvalid("data:text/plain,%zz")
    }

    func testInvalidSourceMessageIsAbbreviated() {
        let long = "data:image/png;base64," + String(repeating: "!", count: 500)
        do {
            _ = try Source(parsing: long)
            XCTFail("parsed")
        } catch {
            guard case .invalidSource(let text) = error else { return XCTFail("\(error)") }
            XCTAssertLessThan(text.count, 120)
            XCTAssertEqual(error.code, "invalid_source")
        }
    }
}
