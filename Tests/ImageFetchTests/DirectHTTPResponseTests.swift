import XCTest
@testable import ImageFetch

/// `DirectHTTPResponse.parse`: what the remote tier's direct client relies on from a whole response
/// read to the end of its connection, and what it must refuse from a hostile or broken server.
final class DirectHTTPResponseTests: XCTestCase {
    enum Kind: Equatable { case malformed, truncated, tooLarge }

    static func kind(_ e: DirectHTTPError) -> Kind {
        switch e {
        case .malformed: .malformed
        case .truncated: .truncated
        case .tooLarge: .tooLarge
        }
    }

    func parse(_ text: String, max: Int = 1 << 20, file: StaticString = #filePath, line: UInt = #line) -> DirectHTTPResponse? {
        parse(Array(text.utf8), max: max, file: file, line: line)
    }

    func parse(_ bytes: [UInt8], max: Int = 1 << 20, file: StaticString = #filePath, line: UInt = #line) -> DirectHTTPResponse? {
        do {
            return try DirectHTTPResponse.parse(bytes, maxBodyBytes: max)
        } catch {
            XCTFail("expected a response, got \(error)", file: file, line: line)
            return nil
        }
    }

    func assertRefused(_ text: String, _ expected: Kind, max: Int = 1 << 20, file: StaticString = #filePath, line: UInt = #line) {
        assertRefused(Array(text.utf8), expected, max: max, file: file, line: line)
    }

    func assertRefused(_ bytes: [UInt8], _ expected: Kind, max: Int = 1 << 20, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let r = try DirectHTTPResponse.parse(bytes, maxBodyBytes: max)
            XCTFail("expected \(expected), got status \(r.status) with \(r.body.count) body bytes", file: file, line: line)
        } catch {
            XCTAssertEqual(Self.kind(error), expected, "\(error)", file: file, line: line)
        }
    }

    func chunked(_ body: String) -> String { "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body }

    // MARK: - What a correct server sends

    func testContentLengthBodyIsExactAndHeadersAreCaseInsensitive() throws {
        // A binary body with CRLFs, a blank line and a NUL in it: only Content-Length frames it.
        let body: [UInt8] = [0xFF, 0xD8, 0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x48, 0x54, 0x54, 0x50]
        let head = "HTTP/1.1 200 OK\r\nContent-Type:   image/jpeg  \r\nContent-Length: \(body.count)\r\nX-Empty:\r\nETag: \"a\tb\"\r\n\r\n"
        let r = try XCTUnwrap(parse(Array(head.utf8) + body))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.body, body)
        XCTAssertEqual(r.headers["content-type"], "image/jpeg")
        XCTAssertEqual(r.headers["CONTENT-TYPE"], "image/jpeg")
        XCTAssertEqual(r.headers["content-length"], "11")
        XCTAssertEqual(r.headers["x-empty"], "")
        XCTAssertEqual(r.headers["etag"], "\"a\tb\"")
        XCTAssertNil(r.headers["last-modified"])
        // A status line without a reason phrase, and an empty body.
        let empty = try XCTUnwrap(parse("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n"))
        XCTAssertEqual(empty.status, 200)
        XCTAssertEqual(empty.body, [])
    }

    func testCloseDelimitedBodyRunsToTheEndOfTheConnection() throws {
        let body = "abc\r\n\r\nHTTP/1.1 200 OK\r\n\r\ndef"
        let r = try XCTUnwrap(parse("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" + body))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), body)
        XCTAssertEqual(try XCTUnwrap(parse("HTTP/1.0 200 OK\r\n\r\n")).body, [])
    }

    func testChunkedBodyIsJoinedWithExtensionsAndTrailersDropped() throws {
        let r = try XCTUnwrap(parse(chunked("4;x=y\r\nWiki\r\n5 ; name=\"v\"\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n000a\r\n0123456789\r\n"
                                            + "0;last\r\nExpires: never\r\nX-Checksum: 1\r\n\r\n")))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), "Wikipedia in\r\n\r\nchunks.0123456789")
        XCTAssertNil(r.headers["x-checksum"], "trailers are not headers")
        // No trailers; uppercase and lowercase hex; the coding's name is case-insensitive.
        let s = try XCTUnwrap(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\nA\r\n0123456789\r\nb\r\nabcdefghijk\r\n0\r\n\r\n"))
        XCTAssertEqual(String(decoding: s.body, as: UTF8.self), "0123456789abcdefghijk")
        // Just the last chunk: an empty body.
        XCTAssertEqual(try XCTUnwrap(parse(chunked("0\r\n\r\n"))).body, [])
    }

    func testLineFeedOnlyLineEnds() throws {
        let r = try XCTUnwrap(parse("HTTP/1.1 200 OK\nContent-Type: image/png\nContent-Length: 3\n\nabc"))
        XCTAssertEqual(r.body, Array("abc".utf8))
        XCTAssertEqual(r.headers["content-type"], "image/png")
        let c = try XCTUnwrap(parse("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n2\nde\n0\nX-T: 1\n\n"))
        XCTAssertEqual(c.body, Array("abcde".utf8))
    }

    func testNoContentAndNotModifiedHaveEmptyBodies() throws {
        let r204 = try XCTUnwrap(parse("HTTP/1.1 204 No Content\r\nDate: Mon, 30 Nov 2026 20:00:00 GMT\r\n\r\n"))
        XCTAssertEqual(r204.status, 204)
        XCTAssertEqual(r204.body, [])
        // A 304 may carry the Content-Length of the representation it stands for.
        let r304 = try XCTUnwrap(parse("HTTP/1.1 304 Not Modified\r\nContent-Length: 1234\r\nETag: \"x\"\r\n\r\n"))
        XCTAssertEqual(r304.status, 304)
        XCTAssertEqual(r304.body, [])
        XCTAssertEqual(r304.headers["etag"], "\"x\"")
    }

    func testErrorStatusIsAResponseNotAnError() throws {
        let r = try XCTUnwrap(parse("HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: 9\r\n\r\nnot found"))
        XCTAssertEqual(r.status, 404)
        XCTAssertEqual(r.body, Array("not found".utf8))
        XCTAssertEqual(try XCTUnwrap(parse("HTTP/1.0 503 Service Unavailable\r\nRetry-After: 5\r\n\r\nbusy")).status, 503)
    }

    func testInterimResponsesAreSkipped() throws {
        let r = try XCTUnwrap(parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n"
                                    + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.body, Array("ok".utf8))
        XCTAssertNil(r.headers["link"], "the headers are the final response's")
        // Eight interim responses are skipped; a ninth is refused.
        let eight = String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 8)
        XCTAssertEqual(try XCTUnwrap(parse(eight + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")).status, 200)
        assertRefused(eight + "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", .malformed)
        // An interim response and then the end of the connection.
        assertRefused("HTTP/1.1 100 Continue\r\n\r\n", .truncated)
    }

    func testDuplicateIdenticalContentLengthIsAccepted() throws {
        let r = try XCTUnwrap(parse("HTTP/1.1 200 OK\r\nContent-Length: 4\r\ncontent-length: 4\r\n\r\nabcd"))
        XCTAssertEqual(r.body, Array("abcd".utf8))
    }

    func testContentEncodingIdentityIsAccepted() throws {
        XCTAssertEqual(try XCTUnwrap(parse("HTTP/1.1 200 OK\r\nContent-Encoding: identity\r\nContent-Length: 1\r\n\r\nx")).body, [0x78])
    }

    // MARK: - The head of a hostile response

    func testEmptyOrCutHeadIsTruncated() {
        assertRefused("", .truncated)
        assertRefused("HTTP/1.1 2", .truncated)
        assertRefused("HTTP/1.1 200 OK\r\n", .truncated)
        assertRefused("HTTP/1.1 200 OK\r\nContent-Le", .truncated)
        assertRefused("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r", .truncated)
    }

    func testHeadOverSixtyFourKiBIsMalformed() throws {
        let filler = "X-Filler: " + String(repeating: "a", count: 1000) + "\r\n"
        let long = "HTTP/1.1 200 OK\r\n" + String(repeating: filler, count: 70)
        assertRefused(long, .malformed)                                  // never ends
        assertRefused(long + "Content-Length: 0\r\n\r\n", .malformed)    // ends after 64 KiB
        // A head just under the bound is read.
        let big = "HTTP/1.1 200 OK\r\n" + String(repeating: filler, count: 60) + "Content-Length: 2\r\n\r\nok"
        XCTAssertEqual(try XCTUnwrap(parse(big)).body, Array("ok".utf8))
    }

    func testBadStatusLinesAreMalformed() {
        for line in ["HTTP/2 200", "HTTP/2.0 200 OK", "HTTP/1.1 20", "HTTP/1.1 999", "HTTP/1.1 099 x", "HTTP/1.1 600 x",
                     "ICY 200 OK", "HTTP/1.2 200 OK", "http/1.1 200 OK", "HTTP/1.1  200 OK", "HTTP/1.1 2000 OK",
                     "HTTP/1.1 20x OK", "HTTP/1.1 200OK", " HTTP/1.1 200 OK", "HTTP/1.1\t200 OK", ""] {
            assertRefused(line + "\r\nContent-Length: 0\r\n\r\n", .malformed)
        }
    }

    func testBadHeaderLinesAreMalformed() {
        let bad = ["X-A: 1\r\n  folded", "X-A: 1\r\n\tfolded", "Content Type: image/jpeg", "Content-Length : 0", ": value",
                   "no colon", "X-\u{1}: v", "X-A: a\u{0}b", "X-A: a\rb", "X-A: a\u{7F}", "X-A: \u{1B}[31m", "X-A: a\r\r"]
        for header in bad {
            assertRefused("HTTP/1.1 200 OK\r\n\(header)\r\nContent-Length: 0\r\n\r\n", .malformed)
        }
    }

    // MARK: - Framing of a hostile body

    func testBadContentLengthsAreMalformed() {
        for value in ["abc", "-5", "+5", "5.0", "0x5", "5 5", "5, 5", "", "1234567890123456789", "99999999999999999999999"] {
            assertRefused("HTTP/1.1 200 OK\r\nContent-Length: \(value)\r\n\r\nabcde", .malformed)
        }
        assertRefused("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef", .malformed)
    }

    func testBodyShorterThanContentLengthIsTruncatedAndLongerIsMalformed() {
        assertRefused("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabcde", .truncated)
        assertRefused("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcde", .malformed)
        assertRefused("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", .malformed)
    }

    func testBodiesOverTheLimitAreTooLarge() throws {
        // A Content-Length far beyond what was received: refused from the header alone.
        assertRefused("HTTP/1.1 200 OK\r\nContent-Length: 999999999999999999\r\n\r\nabc", .tooLarge, max: 1 << 20)
        assertRefused("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n0123456789a", .tooLarge, max: 10)
        XCTAssertEqual(try XCTUnwrap(parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789", max: 10)).body.count, 10)
        // Close-delimited.
        assertRefused("HTTP/1.0 200 OK\r\n\r\n0123456789a", .tooLarge, max: 10)
        XCTAssertEqual(try XCTUnwrap(parse("HTTP/1.0 200 OK\r\n\r\n0123456789", max: 10)).body.count, 10)
        // Chunked: by the sum of the chunks, and by one huge size before any data.
        assertRefused(chunked("6\r\n012345\r\n5\r\n6789a\r\n0\r\n\r\n"), .tooLarge, max: 10)
        assertRefused(chunked("FFFFFFFFFFFFFFF\r\nabc"), .tooLarge, max: 1 << 20)
        XCTAssertEqual(try XCTUnwrap(parse(chunked("6\r\n012345\r\n4\r\n6789\r\n0\r\n\r\n"), max: 10)).body.count, 10)
    }

    func testBadChunkSizesAreMalformed() {
        for size in ["zz", "5g", "", " 5", "-5", "-0", "+5", "0x5", "5 garbage", "5;x\u{0}", "FFFFFFFFFFFFFFFF", "10000000000000000",
                     "0000000000000005"] {
            assertRefused(chunked("\(size)\r\nhello\r\n0\r\n\r\n"), .malformed)
        }
        // A chunk line longer than 4 KiB (a huge extension).
        assertRefused(chunked("5;x=" + String(repeating: "y", count: 5000) + "\r\nhello\r\n0\r\n\r\n"), .malformed)
    }

    func testBrokenChunkFramingIsRefused() {
        assertRefused(chunked("5\r\nhelloX\r\n0\r\n\r\n"), .malformed)       // no CRLF after the data
        assertRefused(chunked("5\r\nhello0\r\n\r\n"), .malformed)
        assertRefused(chunked("5\r\nhel"), .truncated)                       // cut inside a chunk
        assertRefused(chunked("5\r\nhello"), .truncated)                     // cut before the chunk's CRLF
        assertRefused(chunked("5\r\nhello\r\n"), .truncated)                 // no last chunk
        assertRefused(chunked(""), .truncated)
        assertRefused(chunked("5\r\nhello\r\n0\r\n"), .truncated)            // no end of the trailer section
        assertRefused(chunked("0\r\nX-T: 1\r\n"), .truncated)
        assertRefused(chunked("5\r\nhello\r\n0\r\n\r\nextra"), .malformed)   // bytes after the body
    }

    func testTrailersAreBoundedAndMustBeFields() throws {
        let hundred = (1...100).map { "X-T\($0): v\r\n" }.joined()
        XCTAssertEqual(try XCTUnwrap(parse(chunked("2\r\nok\r\n0\r\n" + hundred + "\r\n"))).body, Array("ok".utf8))
        assertRefused(chunked("2\r\nok\r\n0\r\n" + hundred + "X-T101: v\r\n\r\n"), .malformed)
        for line in ["not a field", " folded", ": v", "X-T: a\u{0}b"] {
            assertRefused(chunked("2\r\nok\r\n0\r\n\(line)\r\n\r\n"), .malformed)
        }
    }

    func testCodingsThatWereNotAskedForAreMalformed() {
        assertRefused("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n5\r\nhello\r\n0\r\n\r\n", .malformed)
        assertRefused("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", .malformed)
        for coding in ["gzip", "gzip, chunked", "chunked, chunked", "identity", "chunked;q=1", ""] {
            assertRefused("HTTP/1.1 200 OK\r\nTransfer-Encoding: \(coding)\r\n\r\n5\r\nhello\r\n0\r\n\r\n", .malformed)
        }
        assertRefused("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .malformed)
        // An HTTP/1.0 server cannot send chunked: RFC 9112 §6.1 calls its framing faulty.
        assertRefused("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", .malformed)
        for coding in ["gzip", "br", "deflate", "identity, gzip"] {
            assertRefused("HTTP/1.1 200 OK\r\nContent-Encoding: \(coding)\r\nContent-Length: 5\r\n\r\nhello", .malformed)
        }
    }

    func testSwitchingProtocolsIsMalformed() {
        assertRefused("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u{81}\u{5}hello", .malformed)
        assertRefused("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 101 Switching Protocols\r\n\r\n", .malformed)
    }
}
