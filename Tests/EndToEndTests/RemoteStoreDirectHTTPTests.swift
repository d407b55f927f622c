import Foundation
import ImageFetch
import XCTest

/// Every case of `RemoteStoreHTTPTests` again with GETs over `DirectHTTPClient` (no libcurl), plus
/// what only a client of its own has to get right: framing, hostile answers, bounds, cancellation.
final class RemoteStoreDirectHTTPTests: RemoteStoreHTTPTests {
    override class var directReads: Bool { true }

    private var key: String { RemoteStoreHTTPTests.key }

    func testAChunkedAnswerIsJoined() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        try raw.answer("\(key).jpg", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nabcd\r\n3\r\nefg\r\n0\r\nX-Trailer: 1\r\n\r\n")
        let got = try await store(raw.url("/c/")).get("\(key).jpg", maxBytes: 100)
        XCTAssertEqual(got, Array("abcdefg".utf8))
    }

    func testAnHTTP10AnswerWithoutALengthEndsWithTheConnection() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        try raw.answer("\(key).meta", "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nwhole body")
        let got = try await store(raw.url("/c/")).get("\(key).meta", maxBytes: 100)
        XCTAssertEqual(got, Array("whole body".utf8))
    }

    func testACutShortBodyIsAnErrorNotAnObject() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        try raw.answer("\(key).jpg", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this much")
        await assertError(try await store(raw.url("/c/")).get("\(key).jpg", maxBytes: 1000), contains: "incomplete response")
    }

    func testGarbageIsAnError() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        try raw.answer("\(key).jpg", "SSH-2.0-OpenSSH_9.2\r\n\r\n")
        try raw.answer("\(key).meta", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n folded: header\r\n\r\nhello")
        try raw.answer("\(key).png", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 5\r\n\r\nhello")
        let s = try store(raw.url("/c/"))
        await assertError(try await s.get("\(key).jpg", maxBytes: 1000), contains: "malformed response")
        await assertError(try await s.get("\(key).meta", maxBytes: 1000), contains: "malformed response")
        await assertError(try await s.get("\(key).png", maxBytes: 1000), contains: "Content-Encoding")
    }

    func testEndlessHeadersAndBodiesAreCut() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        let manyHeaders = "HTTP/1.1 200 OK\r\n" + String(repeating: "X-Filler: 0123456789abcdef0123456789abcdef\r\n", count: 50_000) + "\r\nbody"
        try raw.answer("\(key).meta", manyHeaders)
        try raw.answer("\(key).jpg", "HTTP/1.0 200 OK\r\n\r\n" + String(repeating: "z", count: 3 << 20))
        let s = try store(raw.url("/c/"))
        await assertError(try await s.get("\(key).meta", maxBytes: 1000), contains: "larger than 1000 bytes")
        await assertError(try await s.get("\(key).jpg", maxBytes: 100_000), contains: "larger than 100000 bytes")
    }

    func testAHangingGetTimesOut() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        let started = Date()
        await assertError(try await store(raw.url("/c/"), timeout: 1).get("hang.meta", maxBytes: 1000), contains: "timed out")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testCancellingAGetEndsItAtOnce() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        let s = try store(raw.url("/c/"), timeout: 60)
        let started = Date()
        let task = Task { try await s.get("hang.jpg", maxBytes: 1000) }
        try await Task.sleep(nanoseconds: 300_000_000)
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("a cancelled GET of a hanging server answered")
        } catch let error as RemoteStoreError {
            XCTAssertTrue(error.message.contains("cancelled"), error.message)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testATricklingServerIsHeldToTheWholeTimeout() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        // One byte every 0.2 s: every wait is short, the whole answer would take 10 s.
        try raw.answer("trickle.jpg", "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n" + String(repeating: "t", count: 20))
        let started = Date()
        await assertError(try await store(raw.url("/c/"), timeout: 1).get("trickle.jpg", maxBytes: 1000), contains: "timed out")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    func testNoDescriptorOutlivesItsRequest() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        try raw.answer("\(key).jpg", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
        try raw.answer("\(key).png", "garbage")
        let s = try store(raw.url("/c/"), timeout: 0.3)
        let refused = try store("http://127.0.0.1:\(try LocalPorts.free())/c/")
        let named = try store("http://localhost:\(raw.port)/c/")   // resolved on a thread of its own
        /// One of each: an object, a 404, a malformed and a too large answer, a refused connection, a
        /// name to resolve, a timeout (`timeOut`), a cancel before or after the start.
        func round(_ n: Int, timeOut: Bool) async throws {
            _ = try await s.get("\(key).jpg", maxBytes: 100)
            _ = try await s.get("\(key).gif", maxBytes: 100)
            _ = try? await s.get("\(key).png", maxBytes: 100)
            _ = try? await s.get("\(key).jpg", maxBytes: 2)
            _ = try? await refused.get("\(key).jpg", maxBytes: 100)
            _ = try await named.get("\(key).jpg", maxBytes: 100)
            if timeOut { _ = try? await s.get("hang.jpg", maxBytes: 100) }
            let task = Task { try await s.get("hang.jpg", maxBytes: 100) }
            if n % 2 == 0 { try await Task.sleep(nanoseconds: 5_000_000) }
            task.cancel()
            _ = try? await task.value
        }
        func openDescriptors() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count }
        // A first round opens what the process keeps (the dispatch timer of Task.sleep, ...).
        try await round(0, timeOut: true)
        try await Task.sleep(nanoseconds: 100_000_000)
        let before = try openDescriptors()
        for n in 0..<40 { try await round(n, timeOut: n % 10 == 0) }
        // The exchange thread lets go of its socket and eventfd just after it calls back.
        var after = try openDescriptors()
        for _ in 0..<100 where after > before {
            try await Task.sleep(nanoseconds: 10_000_000)
            after = try openDescriptors()
        }
        XCTAssertLessThanOrEqual(after, before, "descriptors left open")
    }

    func testGetsCancelledBeforeTheyStartEndCleanly() async throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        try raw.answer("\(key).jpg", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
        let s = try store(raw.url("/c/"))
        let name = "\(key).jpg"
        for _ in 0..<300 {
            let task = Task { try await s.get(name, maxBytes: 100) }
            task.cancel()
            do {
                let got = try await task.value
                XCTAssertEqual(got, Array("hello".utf8))
            } catch let error as RemoteStoreError {
                XCTAssertTrue(error.message.contains("cancelled"), error.message)
            }
        }
    }

    private func assertError(_ body: @autoclosure () async throws -> [UInt8]?, contains text: String,
                             file: StaticString = #filePath, line: UInt = #line) async {
        do {
            let got = try await body()
            XCTFail("an answer that should have been refused gave \(got.map { "\($0.count) bytes" } ?? "nil")", file: file, line: line)
        } catch let error as RemoteStoreError {
            XCTAssertTrue(text.isEmpty || error.message.contains(text), error.message, file: file, line: line)
            XCTAssertTrue(error.message.hasPrefix("remote cache http://127.0.0.1:"), error.message, file: file, line: line)
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
    }
}

/// Tests/Support/raw_http_server.py: answers `GET /.../NAME` with the raw bytes of file NAME.
final class RawHTTPServer {
    let directory: URL
    private let script: PortReportingScript

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("raw-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        script = try PortReportingScript(E2EPaths.rawServerScript, [directory.path])
    }

    var port: Int { script.port }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func answer(_ name: String, _ raw: String) throws {
        try Data(raw.utf8).write(to: directory.appendingPathComponent(name))
    }

    func stop() {
        script.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
