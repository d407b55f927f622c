import Foundation
import XCTest
@testable import ImageFetch

/// The Python test peer (Tests/Support/curl_test_server.py), started once per test process.
/// It exits by itself when this process ends (its standard input closes).
private final class CurlTestServer: @unchecked Sendable {
    let port: Int
    let closedPort: Int
    private let process: Process
    private let stdin: Pipe

    static let shared: CurlTestServer = {
        do { return try CurlTestServer() } catch { fatalError("cannot start curl_test_server.py: \(error)") }
    }()

    private init() throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/curl_test_server.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let out = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardInput = input
        try process.run()
        var line = Data()
        let reader = out.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { throw CocoaError(.fileReadCorruptFile) }
            line.append(chunk)
        }
        let fields = String(decoding: line, as: UTF8.self)
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
        guard fields.count == 2 else { throw CocoaError(.fileReadCorruptFile) }
        self.port = fields[0]
        self.closedPort = fields[1]
        self.process = process
        self.stdin = input
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}

final class CurlTransportTests: XCTestCase {
    private var server: CurlTestServer { CurlTestServer.shared }

    private func makeTransport() throws -> CurlTransport {
        try CurlTransport()
    }

    private func expected(_ n: Int) -> [UInt8] { (0..<n).map { UInt8($0 % 256) } }

    func testBodyBytes() async throws {
        let t = try makeTransport()
        let r = await t.perform(TransferRequest(url: server.url("/bytes/100000")))
        XCTAssertEqual(r.curlCode, 0, r.errorMessage)
        XCTAssertEqual(r.httpStatus, 200)
        XCTAssertFalse(r.tooLarge)
        XCTAssertEqual(r.body, expected(100000))
        XCTAssertEqual(r.downloadBytes, 100000)
        XCTAssertEqual(r.redirects, 0)
        XCTAssertEqual(r.effectiveURL, server.url("/bytes/100000"))
        XCTAssertEqual(r.errorMessage, "")
    }

    func testEmptyBody() async throws {
        let r = try await makeTransport().perform(TransferRequest(url: server.url("/bytes/0")))
        XCTAssertEqual(r.curlCode, 0, r.errorMessage)
        XCTAssertEqual(r.httpStatus, 200)
        XCTAssertEqual(r.body, [])
    }

    func testChunkedBody() async throws {
        let r = try await makeTransport().perform(TransferRequest(url: server.url("/chunked/50000")))
        XCTAssertEqual(r.curlCode, 0, r.errorMessage)
        XCTAssertEqual(r.body, expected(50000))
        XCTAssertNil(r.headers["content-length"])
        XCTAssertEqual(r.headers["transfer-encoding"], "chunked")
    }

    func testStatus404IsACompletedTransfer() async throws {
        let r = try await makeTransport().perform(TransferRequest(url: server.url("/status/404")))
        XCTAssertEqual(r.curlCode, 0, r.errorMessage)
        XCTAssertEqual(r.httpStatus, 404)
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), "status 404\n")
    }

    func testResponseHeadersAndRequestHeaders() async throws {
        let t = try makeTransport()
        let r = await t.perform(TransferRequest(url: server.url("/headers"), headers: ["If-None-Match: \"xyz\""]))
        XCTAssertEqual(r.curlCode, 0, r.errorMessage)
        XCTAssertEqual(r.headers["ETag"], "\"abc\"")
        XCTAssertEqual(r.headers["etag"], "\"abc\"")
        XCTAssertEqual(r.headers["CACHE-CONTROL"], "max-age=60")
        XCTAssertEqual(r.headers["last-modified"], "Wed, 21 Oct 2015 07:28:00 GMT")
        XCTAssertNil(r.headers["x-missing"])
        XCTAssertFalse(r.headers.all.contains { $0.name.hasPrefix("HTTP/") }, "status line must not be a header")
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), "\"xyz\"")

        let ua = await t.perform(TransferRequest(url: server.url("/echo-header/User-Agent")))
        XCTAssertEqual(String(decoding: ua.body, as: UTF8.self), "imgfetch/\(ImageFetchVersion.string)")
    }

    func testHeaderParsingLastWinsCaseInsensitive() {
        let h = HTTPHeaders(parsing: "Set-Cookie: a=1\nX-Thing:  first \nx-thing: second\r\nno colon here\nEmpty:")
        XCTAssertEqual(h["X-THING"], "second")
        XCTAssertEqual(h["set-cookie"], "a=1")
        XCTAssertEqual(h["empty"], "")
        XCTAssertEqual(h.all.count, 4)
    }

    func testRedirectChainFollowed() async throws {
        let r = try await makeTransport().perform(TransferRequest(url: server.url("/redirect/3")))
        XCTAssertEqual(r.curlCode, 0, r.errorMessage)
        XCTAssertEqual(r.httpStatus, 200)
        XCTAssertEqual(r.redirects, 3)
        XCTAssertEqual(r.body, expected(10))
        XCTAssertEqual(r.effectiveURL, server.url("/bytes/10"))
        // Only the final response's headers are kept.
        XCTAssertNil(r.headers["location"])
        XCTAssertEqual(r.headers["content-length"], "10")
    }

    func testTooManyRedirects() async throws {
        let r = try await makeTransport().perform(TransferRequest(url: server.url("/redirect/6")))
        XCTAssertEqual(r.curlCode, 47, r.errorMessage)
        XCTAssertFalse(r.errorMessage.isEmpty)
    }

    func testRedirectToFileRefused() async throws {
        let r = try await makeTransport().perform(TransferRequest(url: server.url("/redirect-file")))
        XCTAssertEqual(r.curlCode, 1, r.errorMessage)
        XCTAssertFalse(String(decoding: r.body, as: UTF8.self).contains("root:"))
    }

    func testMaxBytesWithContentLength() async throws {
        let t = try makeTransport()
        let r = await t.perform(TransferRequest(url: server.url("/bytes/100000"), maxBytes: 1000))
        XCTAssertNotEqual(r.curlCode, 0)
        XCTAssertTrue(r.tooLarge, "curl \(r.curlCode): \(r.errorMessage)")
        // Exactly at the cap is fine.
        let ok = await t.perform(TransferRequest(url: server.url("/bytes/1000"), maxBytes: 1000))
        XCTAssertEqual(ok.curlCode, 0, ok.errorMessage)
        XCTAssertFalse(ok.tooLarge)
        XCTAssertEqual(ok.body.count, 1000)
    }

    func testMaxBytesChunked() async throws {
        let t = try makeTransport()
        let r = await t.perform(TransferRequest(url: server.url("/chunked/100000"), maxBytes: 1000))
        XCTAssertNotEqual(r.curlCode, 0)
        XCTAssertTrue(r.tooLarge, "curl \(r.curlCode): \(r.errorMessage)")
        XCTAssertLessThanOrEqual(r.body.count, 1000)
        let ok = await t.perform(TransferRequest(url: server.url("/chunked/1000"), maxBytes: 1000))
        XCTAssertEqual(ok.curlCode, 0, ok.errorMessage)
        XCTAssertFalse(ok.tooLarge)
        XCTAssertEqual(ok.body, expected(1000))
    }

    func testTimeout() async throws {
        let t = try makeTransport()
        let start = ContinuousClock.now
        let r = await t.perform(TransferRequest(url: server.url("/slow"), timeout: 0.5))
        let elapsed = ContinuousClock.now - start
        XCTAssertEqual(r.curlCode, 28, r.errorMessage)
        XCTAssertLessThan(elapsed, .seconds(3))
    }

    /// The interrupt of a batch: with one connection allowed, three transfers wait inside curl.
    /// cancelAll ends all four at once and the freed connection starts none of the waiting ones.
    func testCancelAllAbortsEverythingAndStartsNothingQueued() async throws {
        let t = try CurlTransport(maxTotalConnections: 1)
        let server = self.server
        let tag = "tag=cancel-all-\(UInt64.random(in: 0...UInt64.max))"
        let counter = try makeTransport()
        func count() async -> Int {
            Int(String(decoding: await counter.perform(TransferRequest(url: server.url("/count/\(tag)"))).body, as: UTF8.self)) ?? -1
        }
        let start = ContinuousClock.now
        async let results = withTaskGroup(of: TransferResult.self) { group in
            for _ in 0..<4 { group.addTask { await t.perform(TransferRequest(url: server.url("/slow?\(tag)"), timeout: 30)) } }
            var all: [TransferResult] = []
            for await r in group { all.append(r) }
            return all
        }
        var seen = 0
        while seen < 1 && ContinuousClock.now - start < .seconds(5) {
            seen = await count()
            if seen < 1 { try await Task.sleep(for: .milliseconds(20)) }
        }
        XCTAssertEqual(seen, 1, "one transfer reached the server, three wait for the connection")
        t.cancelAll()
        let all = await results
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(4), "nothing waited for the 5 s response")
        XCTAssertEqual(all.map(\.curlCode), [42, 42, 42, 42], "all four aborted")
        try await Task.sleep(for: .milliseconds(200))
        let requests = await count()
        XCTAssertEqual(requests, 1, "no waiting transfer started on the freed connection")
        let later = await t.perform(TransferRequest(url: server.url("/slow?\(tag)")))
        XCTAssertEqual(later.curlCode, 42, "a transfer added after cancelAll is aborted too")
        let afterwards = await count()
        XCTAssertEqual(afterwards, 1)
    }

    // MARK: - transfers waiting for a slot

    /// Transfers beyond the limit wait in the engine, not in libcurl, whose total timeout would
    /// run from the moment a handle is added: a queued transfer must not time out unsent.
    func assertQueuedTransfersKeepTheirWholeTimeout(_ transport: CurlTransport, file: StaticString = #filePath, line: UInt = #line) async throws {
        let server = self.server
        let maxActive = try makeTransport()
        _ = await maxActive.perform(TransferRequest(url: server.url("/maxactive")))   // reset
        let results = await withTaskGroup(of: TransferResult.self) { group in
            for _ in 0..<3 {
                group.addTask { await transport.perform(TransferRequest(url: server.url("/delay/600"), timeout: 1.5)) }
            }
            var all: [TransferResult] = []
            for await r in group { all.append(r) }
            return all
        }
        XCTAssertEqual(results.map(\.curlCode), [0, 0, 0], "each had 0.6 s of work and 1.5 s of timeout: \(results.map(\.errorMessage))",
                       file: file, line: line)
        let most = String(decoding: await maxActive.perform(TransferRequest(url: server.url("/maxactive"))).body, as: UTF8.self)
        XCTAssertEqual(most, "1", "one transfer at a time reached the server", file: file, line: line)
    }

    func testTransfersBeyondTheLimitWaitWithoutSpendingTheirTimeout() async throws {
        try await assertQueuedTransfersKeepTheirWholeTimeout(try CurlTransport(maxTotalConnections: 1))
    }

    func testTheSameHoldsForThePerHostLimit() async throws {
        try await assertQueuedTransfersKeepTheirWholeTimeout(try CurlTransport(maxPerHost: 1))
    }

    // MARK: - body tap (decoding while downloading)

    func tapped(_ path: String, maxBytes: Int64? = nil, timeout: Double? = nil) async throws -> (TransferResult, TapRecorder) {
        let recorder = TapRecorder()
        var request = TransferRequest(url: server.url(path), timeout: timeout, maxBytes: maxBytes)
        request.tap = recorder.tap
        let result = try await makeTransport().perform(request)
        return (result, recorder)
    }

    func testTapSeesExactlyTheBodyThenOneCompleteEnd() async throws {
        for path in ["/bytes/100000", "/chunked/50000", "/redirect/3", "/bytes/0"] {
            let (r, tap) = try await tapped(path)
            XCTAssertEqual(r.curlCode, 0, path)
            XCTAssertEqual(tap.bytes, r.body, "\(path): the tap saw the body, and only the final response's")
            XCTAssertEqual(tap.ends, [1], "\(path): ended once, complete")
        }
    }

    func testTapEndsIncompleteWhenTheTransferFails() async throws {
        let (capped, cappedTap) = try await tapped("/bytes/100000", maxBytes: 1000)
        XCTAssertTrue(capped.tooLarge)
        XCTAssertEqual(cappedTap.ends, [0], "over the byte cap")
        let (slow, slowTap) = try await tapped("/slow", timeout: 0.3)
        XCTAssertEqual(slow.curlCode, 28)
        XCTAssertEqual(slowTap.ends, [0], "timed out")
        let (notFound, notFoundTap) = try await tapped("/status/404")
        XCTAssertEqual(notFound.httpStatus, 404)
        XCTAssertFalse(notFound.body.isEmpty)
        XCTAssertEqual(notFoundTap.bytes, [], "an error page is not decoded")
        XCTAssertEqual(notFoundTap.ends, [0])
        let recorder = TapRecorder()
        var refused = TransferRequest(url: "http://127.0.0.1:\(server.closedPort)/")
        refused.tap = recorder.tap
        _ = try await makeTransport().perform(refused)
        XCTAssertEqual(recorder.ends, [0], "connection refused")
    }

    func testConnectionRefused() async throws {
        let r = try await makeTransport().perform(TransferRequest(url: "http://127.0.0.1:\(server.closedPort)/"))
        XCTAssertEqual(r.curlCode, 7, r.errorMessage)
        XCTAssertEqual(r.httpStatus, 0)
        XCTAssertFalse(r.errorMessage.isEmpty)
    }

    func testMalformedURL() async throws {
        let r = try await makeTransport().perform(TransferRequest(url: "http://"))
        XCTAssertEqual(r.curlCode, 3, r.errorMessage)
    }

    func testFiftyConcurrentTransfers() async throws {
        let t = try makeTransport()
        let server = self.server
        let results = await withTaskGroup(of: (Int, TransferResult).self) { group in
            for i in 0..<50 {
                let n = 1000 + i * 997
                group.addTask { (n, await t.perform(TransferRequest(url: server.url("/bytes/\(n)"), timeout: 30))) }
            }
            var all: [(Int, TransferResult)] = []
            for await r in group { all.append(r) }
            return all
        }
        XCTAssertEqual(results.count, 50)
        for (n, r) in results {
            XCTAssertEqual(r.curlCode, 0, r.errorMessage)
            XCTAssertEqual(r.httpStatus, 200)
            XCTAssertEqual(r.body.count, n)
            XCTAssertEqual(r.body, expected(n))
        }
    }

    func testConnectionLimitsStillComplete() async throws {
        let t = try CurlTransport(maxTotalConnections: 2, maxPerHost: 1)
        let server = self.server
        let codes = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<6 {
                group.addTask { await t.perform(TransferRequest(url: server.url("/bytes/5000"))).httpStatus }
            }
            var all: [Int] = []
            for await c in group { all.append(c) }
            return all
        }
        XCTAssertEqual(codes, Array(repeating: 200, count: 6))
    }

    func testCancellation() async throws {
        let t = try makeTransport()
        let server = self.server
        let start = ContinuousClock.now
        let task = Task { await t.perform(TransferRequest(url: server.url("/slow"))) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let r = await task.value
        let elapsed = ContinuousClock.now - start
        XCTAssertEqual(r.curlCode, 42, r.errorMessage)
        XCTAssertLessThan(elapsed, .seconds(2))
    }

    func testCancelledBeforeStart() async throws {
        let t = try makeTransport()
        let server = self.server
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await t.perform(TransferRequest(url: server.url("/bytes/10")))
        }
        let r = await task.value
        XCTAssertEqual(r.curlCode, 42)
    }

    func testTransportReleaseAndRestart() async throws {
        // The loop thread exits when idle and restarts on demand; a dropped transport frees its engine.
        var t: CurlTransport? = try makeTransport()
        let first = await t!.perform(TransferRequest(url: server.url("/bytes/10")))
        XCTAssertEqual(first.curlCode, 0, first.errorMessage)
        try await Task.sleep(for: .milliseconds(2300))
        let second = await t!.perform(TransferRequest(url: server.url("/bytes/10")))
        XCTAssertEqual(second.curlCode, 0, second.errorMessage)
        t = nil
        let third = try await makeTransport().perform(TransferRequest(url: server.url("/bytes/10")))
        XCTAssertEqual(third.curlCode, 0, third.errorMessage)
    }
}
