import Foundation
import ImageFetch
import XCTest

/// `HTTPRemoteStore` over http:// against a real nginx with WebDAV PUT (NginxDAVServer), through
/// real libcurl: what the remote cache tier and `cache push` / `cache pull` stand on.
/// `RemoteStoreDirectHTTPTests` runs every case again with GETs over the direct client.
class RemoteStoreHTTPTests: XCTestCase {
    static let key = String(repeating: "ab", count: 32)

    /// Whether GETs go over `DirectHTTPClient` instead of libcurl.
    class var directReads: Bool { false }

    func store(_ url: String, timeout: Double = 30) throws -> any RemoteStoring {
        try RemoteStores.make(RemoteStoreSettings(url: url, connectTimeout: 5, timeout: timeout,
                                                  directReads: Self.directReads))
    }

    func testPutGetExistsListRoundTrip() async throws {
        let nginx = try NginxDAVServer()
        defer { nginx.stop() }
        let store = try store(nginx.url("/cache/v1"))   // no trailing slash: one is added
        XCTAssertEqual(store.description, nginx.url("/cache/v1/"))
        let image = Array(try E2EPaths.fixtureData("photo.jpg"))
        let key = RemoteStoreHTTPTests.key

        // Before anything is stored: no object, an empty listing (the directory does not exist).
        let missing = try await store.get("\(key).jpg", maxBytes: 1 << 20)
        XCTAssertNil(missing)
        let existsBefore = try await store.exists("\(key).meta")
        XCTAssertFalse(existsBefore)
        let emptyListing = try await store.list(continuation: nil)
        XCTAssertEqual(emptyListing.names, [])

        try await store.put("\(key).jpg", image, contentType: "image/jpeg")
        try await store.put("\(key).meta", Array("meta bytes\n".utf8), contentType: "application/octet-stream")
        // The files nginx wrote are the bytes sent.
        XCTAssertEqual(nginx.storedFile("cache/v1/\(key).jpg"), Data(image))

        let got = try await store.get("\(key).jpg", maxBytes: Int64(image.count))
        XCTAssertEqual(got, image)
        let existsAfter = try await store.exists("\(key).meta")
        XCTAssertTrue(existsAfter)
        let listing = try await store.list(continuation: nil)
        XCTAssertEqual(Set(listing.names), ["\(key).jpg", "\(key).meta"])
        XCTAssertNil(listing.continuation)

        // A PUT replaces the object; an empty object is stored and read back empty.
        try await store.put("\(key).meta", [], contentType: "application/octet-stream")
        let empty = try await store.get("\(key).meta", maxBytes: 0)
        XCTAssertEqual(empty, [])

        let methods = nginx.requests().map(\.method)
        XCTAssertEqual(Set(methods), ["GET", "HEAD", "PUT"], "\(nginx.requests())")
    }

    func testBodyOverTheCapIsAnError() async throws {
        let nginx = try NginxDAVServer()
        defer { nginx.stop() }
        let store = try store(nginx.url("/c/"))
        let key = RemoteStoreHTTPTests.key
        try await store.put("\(key).jpg", [UInt8](repeating: 7, count: 5000), contentType: "image/jpeg")
        do {
            _ = try await store.get("\(key).jpg", maxBytes: 4999)
            XCTFail("a body over maxBytes was accepted")
        } catch {
            XCTAssertTrue(error.message.contains("larger than 4999 bytes"), error.message)
        }
    }

    func testServerErrorIsAnErrorWithItsStatus() async throws {
        let nginx = try NginxDAVServer(mode: .failing(500))
        defer { nginx.stop() }
        let store = try store(nginx.url("/c/"))
        let key = RemoteStoreHTTPTests.key
        do {
            _ = try await store.get("\(key).meta", maxBytes: 1000)
            XCTFail("a 500 was a result")
        } catch {
            XCTAssertEqual(error.status, 500)
            XCTAssertTrue(error.message.contains("HTTP 500"), error.message)
        }
        do {
            try await store.put("\(key).meta", [1, 2, 3], contentType: "application/octet-stream")
            XCTFail("a PUT answered 500 succeeded")
        } catch {
            XCTAssertEqual(error.status, 500)
        }
        do {
            _ = try await store.exists("\(key).meta")
            XCTFail("a HEAD answered 500 said something")
        } catch {
            XCTAssertEqual(error.status, 500)
        }
    }

    func testAnyCapIsAccepted() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        let key = RemoteStoreHTTPTests.key
        try raw.answer("\(key).jpg", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
        let s = try store(raw.url("/c/"))
        // --max-bytes takes any Int64: the largest cap (and one just under it) is no crash.
        for cap in [Int64.max, Int64.max - 1000] {
            let got = try await s.get("\(key).jpg", maxBytes: cap)
            XCTAssertEqual(got, Array("hello".utf8))
        }
    }

    func testALargeErrorPageKeepsItsStatus() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        let key = RemoteStoreHTTPTests.key
        let page = String(repeating: "<p>not here</p>\n", count: 20_000)   // 320 KB: over any cap used here
        try raw.answer("\(key).jpg", "HTTP/1.1 404 Not Found\r\nContent-Length: \(page.utf8.count)\r\n\r\n" + page)
        try raw.answer("\(key).png", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: \(page.utf8.count)\r\n\r\n" + page)
        try raw.answer("\(key).gif", "HTTP/1.0 500 Oops\r\n\r\n" + page)   // no length: ends with the connection
        let s = try store(raw.url("/c/"))
        let missing = try await s.get("\(key).jpg", maxBytes: 1000)
        XCTAssertNil(missing, "a 404 with a large page is no object")
        for (name, status) in [("\(key).png", 503), ("\(key).gif", 500)] {
            do {
                _ = try await s.get(name, maxBytes: 1000)
                XCTFail("an error page was an object")
            } catch {
                XCTAssertEqual(error.status, status, error.message)
                XCTAssertTrue(error.message.contains("HTTP \(status)"), error.message)
            }
        }
    }

    func testARedirectIsAnErrorNotFollowed() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        let key = RemoteStoreHTTPTests.key
        try raw.answer("\(key).jpg", "HTTP/1.1 302 Found\r\nLocation: /c/other.jpg\r\nContent-Length: 0\r\n\r\n")
        try raw.answer("other.jpg", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
        let s = try store(raw.url("/c/"))
        do {
            _ = try await s.get("\(key).jpg", maxBytes: 1000)
            XCTFail("a redirect was followed or taken as the object")
        } catch {
            XCTAssertEqual(error.status, 302)
            XCTAssertTrue(error.message.contains("HTTP 302"), error.message)
        }
    }

    func testAnAnswerSentBeforeTheRequestIsReadIsRead() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        // A complete answer, then a reset (the request arrives at a closed socket).
        try raw.answer("EARLY", "HTTP/1.1 503 Busy\r\nContent-Length: 4\r\n\r\nbusy")
        let s = try store(raw.url("/c/"))
        do {
            _ = try await s.get("\(RemoteStoreHTTPTests.key).jpg", maxBytes: 1000)
            XCTFail("a 503 was an object")
        } catch {
            XCTAssertEqual(error.status, 503, error.message)
        }
    }

    func testTheRequestIsLibcurls() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        let s = try store("HTTP://127.0.0.1:\(raw.port)/c/")
        let echoed = try await s.get("echo.meta", maxBytes: 10_000)
        let lines = String(decoding: try XCTUnwrap(echoed), as: UTF8.self).split(separator: "\r\n").map(String.init)
        XCTAssertEqual(lines.first, "GET /c/echo.meta HTTP/1.1")
        XCTAssertEqual(lines.filter { $0.lowercased().hasPrefix("host:") }, ["Host: 127.0.0.1:\(raw.port)"])
        XCTAssertEqual(lines.filter { $0.hasPrefix("User-Agent:") }, ["User-Agent: imgfetch/\(ImageFetchVersion.string)"])
    }

    func testInterimAnswersAreSkipped() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        let key = RemoteStoreHTTPTests.key
        try raw.answer("\(key).jpg", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x.css>\r\n\r\n"
                       + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
        let got = try await store(raw.url("/c/")).get("\(key).jpg", maxBytes: 100)
        XCTAssertEqual(got, Array("hello".utf8))
    }

    func testRefusedConnectionIsAnError() async throws {
        let port = try LocalPorts.free()   // nothing listens there
        let store = try store("http://127.0.0.1:\(port)/c/")
        do {
            _ = try await store.get("\(RemoteStoreHTTPTests.key).meta", maxBytes: 1000)
            XCTFail("a refused connection was a result")
        } catch {
            XCTAssertEqual(error.status, 0)
            XCTAssertTrue(error.message.contains("connection refused"), error.message)
        }
    }

    func testHangingServerTimesOut() async throws {
        let nginx = try NginxDAVServer(mode: .slow)
        defer { nginx.stop() }
        let store = try store(nginx.url("/c/"), timeout: 1)
        let started = Date()
        do {
            _ = try await store.exists("\(RemoteStoreHTTPTests.key).meta")
            XCTFail("a hanging server answered")
        } catch {
            XCTAssertTrue(error.message.contains("timed out"), error.message)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testHostileListingIsFiltered() async throws {
        let nginx = try NginxDAVServer()
        defer { nginx.stop() }
        let store = try store(nginx.url("/c/"))
        let key = RemoteStoreHTTPTests.key
        try await store.put("\(key).meta", [1], contentType: "application/octet-stream")
        // Files the store's owner (or an attacker) put there by other means: only the cache object
        // name survives the listing.
        let dir = nginx.root.appendingPathComponent("c")
        for name in ["notes.txt", "\(key.uppercased()).meta", "\(key).meta.tmp", "\(key)x.meta", ".\(key).meta",
                     "\(key).", "\(key).verylongext", "a\"b", "\(key).me\"ta"] {
            _ = FileManager.default.createFile(atPath: dir.appendingPathComponent(name).path, contents: Data([1]))
        }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("\(String(repeating: "cd", count: 32)).meta"),
                                                withIntermediateDirectories: true)
        let listing = try await store.list(continuation: nil)
        // The directory named like an object is listed by nginx as a directory, but its name is a
        // valid name: it is kept (a GET of it then fails as any missing object).
        XCTAssertEqual(Set(listing.names), ["\(key).meta", "\(String(repeating: "cd", count: 32)).meta"])
    }

    func testNamesThatAreNotPlainFileNamesAreRefused() async throws {
        let store = try store("http://127.0.0.1:1/c/")
        for name in ["../x", "a/b", ".hidden", "", "a b", "x?y"] {
            do {
                _ = try await store.get(name, maxBytes: 10)
                XCTFail("\(name) was requested")
            } catch {
                XCTAssertTrue(error.message.contains("refused object name"), error.message)
            }
        }
    }

    func testBadURLsAreRefusedBeforeAnyRequest() {
        for url in ["ftp://h/p/", "http://", "http://user:pw@h/p/", "http://h/p/?q=1", "http://h/a/../b/", "s3://",
                    "s3://Bad_Bucket/p", "s3://bucket/../p", "s3://bucket/p q", "/tmp/cache"] {
            XCTAssertThrowsError(try RemoteStores.make(RemoteStoreSettings(url: url, accessKeyID: "AKIDEXAMPLE",
                                                                           secretAccessKey: "s3cr3t-value"))) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("remote cache:"), text)
                XCTAssertFalse(text.contains("pw"), text)
                XCTAssertFalse(text.contains("s3cr3t"), text)
            }
        }
        // s3:// without credentials, and an S3 endpoint with an http:// store.
        XCTAssertThrowsError(try RemoteStores.make(RemoteStoreSettings(url: "s3://bucket/p")))
        XCTAssertThrowsError(try RemoteStores.make(RemoteStoreSettings(url: "http://h/p/", s3Endpoint: "http://127.0.0.1:1")))
    }
}
