import CNet
import Foundation
import XCTest

/// The C exchange of `DirectHTTPClient` (Sources/CNet) called directly, for what its Swift caller
/// never asks but its contract allows: any `max_response`, a cancel after the end.
final class CNetExchangeTests: XCTestCase {
    /// One exchange run to its end; its code and the bytes the server sent.
    private func run(port: Int, path: String, maxResponse: Int, cancelAfterEnd: Bool = false,
                     limitBody: Int? = nil) -> (Int32, Int) {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        let ended = DispatchSemaphore(value: 0)
        let context = Unmanaged.passRetained(ended).toOpaque()
        let handle = request.withUnsafeBytes { raw in
            ifn_exchange_start("127.0.0.1", "\(port)", raw.baseAddress, raw.count, maxResponse, 5000, 5000, { context in
                Unmanaged<DispatchSemaphore>.fromOpaque(context!).takeRetainedValue().signal()
            }, context)
        }
        guard let handle else { XCTFail("the exchange did not start"); return (-1, 0) }
        if let limitBody { ifn_exchange_limit_body(handle, limitBody) }
        ended.wait()
        if cancelAfterEnd { ifn_exchange_cancel(handle) }
        var length = 0
        let code = ifn_exchange_result(handle, nil, &length, nil, 0)
        ifn_exchange_release(handle)
        return (code, length)
    }

    func testAnyMaxResponseIsABoundNotAnOverflow() throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        let answer = "HTTP/1.0 200 OK\r\n\r\n" + String(repeating: "x", count: 100_000)
        try raw.answer("big.jpg", answer)
        // SIZE_MAX (no bound), just under it, and bounds around the answer's size.
        for maxResponse in [-1, Int.max, 100_000 + 19, 16_384] {
            let (code, length) = run(port: raw.port, path: "/c/big.jpg", maxResponse: maxResponse)
            if maxResponse == 16_384 {
                XCTAssertEqual(code, Int32(IFN_E_TOO_LARGE))
            } else {
                XCTAssertEqual(code, Int32(IFN_OK), "max_response \(UInt(bitPattern: maxResponse))")
                XCTAssertEqual(length, answer.utf8.count)
            }
        }
    }

    func testACancelAfterTheEndChangesNothing() throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        try raw.answer("a.jpg", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        for _ in 0..<50 {
            let (code, length) = run(port: raw.port, path: "/c/a.jpg", maxResponse: 1000, cancelAfterEnd: true)
            XCTAssertEqual(code, Int32(IFN_OK))
            XCTAssertEqual(length, 40)
        }
    }

    /// A lowered body limit: an answer announcing more ends at its head (interim heads skipped),
    /// one without a length once it has brought more (with room for chunk framing), one that fits is whole.
    func testALoweredBodyLimitEndsTheAnswerAtItsHead() throws {
        let raw = try RawHTTPServer()
        defer { raw.stop() }
        let body = String(repeating: "x", count: 50_000)
        try raw.answer("long.jpg", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 50000\r\n\r\n" + body)
        try raw.answer("close.jpg", "HTTP/1.0 200 OK\r\n\r\n" + body + body + body + body + body)
        try raw.answer("fits.jpg", "HTTP/1.1 200 OK\r\ncontent-length:   2\r\n\r\nok")
        XCTAssertEqual(run(port: raw.port, path: "/c/long.jpg", maxResponse: 1 << 20, limitBody: 49_999).0, Int32(IFN_E_TOO_LARGE))
        XCTAssertEqual(run(port: raw.port, path: "/c/long.jpg", maxResponse: 1 << 20, limitBody: 50_000).0, Int32(IFN_OK))
        XCTAssertEqual(run(port: raw.port, path: "/c/close.jpg", maxResponse: 1 << 20, limitBody: 1000).0, Int32(IFN_E_TOO_LARGE))
        XCTAssertEqual(run(port: raw.port, path: "/c/close.jpg", maxResponse: 1 << 20, limitBody: 250_000).0, Int32(IFN_OK))
        XCTAssertEqual(run(port: raw.port, path: "/c/fits.jpg", maxResponse: 1000, limitBody: 2).0, Int32(IFN_OK))
    }
}
