import Foundation
import XCTest
@testable import ImageFetch

/// Decoding while downloading: fed in pieces of any size, the result is byte for byte the fast
/// path's on the whole body; anything that is not exactly that body (cut, failed, mismatched,
/// declined) gives nil, so the caller decodes the body itself.
final class JpegStreamDecodeTests: XCTestCase {
    func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: JpegFastPathTests.fixtures.appendingPathComponent(name)))
    }

    func makeDecode(_ w: Int? = 320, _ h: Int? = 320, cover: Bool = false, quality: Int? = nil) throws -> JpegStreamDecode {
        try XCTUnwrap(JpegStreamDecode(width: w, height: h, cover: cover, quality: quality, maxPixels: 100_000_000, startDelay: 0))
    }

    /// Feeds `body` in pieces of `piece` bytes, then ends the stream, as the transfer thread does;
    /// with `pauseEvery`, sleeps 1 ms after every that many pieces (the decoder catches up and waits).
    static func feed(_ decode: JpegStreamDecode, _ body: [UInt8], piece: Int, complete: Bool = true, pauseEvery: Int? = nil) {
        let tap = decode.tap
        body.withUnsafeBytes { buf in
            var offset = 0, pieces = 0
            while offset < buf.count {
                let n = min(piece, buf.count - offset)
                tap.onData(tap.context, buf.baseAddress! + offset, n)
                offset += n
                pieces += 1
                if let pauseEvery, pieces % pauseEvery == 0 { usleep(1000) }
            }
        }
        tap.onEnd(tap.context, complete ? 1 : 0)
    }

    func testAnyPieceSizeGivesTheFastPathResultExactly() throws {
        let cases: [(String, Int?, Int?, Bool, Int?)] = [
            ("photo.jpg", 320, 320, false, nil), ("photo.jpg", 200, 200, true, 90), ("portrait.jpg", 100, nil, false, 60),
            ("progressive.jpg", 64, 64, false, nil), ("grey.jpg", 50, 50, false, nil), ("tiny.jpg", 500, 500, false, nil),
        ]
        for (name, w, h, cover, q) in cases {
            let body = try bytes(name)
            let expected = try XCTUnwrap(try JpegFastPath.thumbnail(body, width: w, height: h, cover: cover, quality: q,
                                                                maxPixels: 100_000_000), name)
            for piece in [1, 7, 4096, body.count] {
                let decode = try makeDecode(w, h, cover: cover, quality: q)
                Self.feed(decode, body, piece: piece)
                let got = try XCTUnwrap(decode.result(for: body), "\(name) in pieces of \(piece)")
                XCTAssertEqual(got.bytes, expected.image.bytes, "\(name) in pieces of \(piece): identical bytes")
                XCTAssertEqual([got.width, got.height, got.sourceWidth, got.sourceHeight],
                               [expected.image.width, expected.image.height, expected.sourceWidth, expected.sourceHeight])
                XCTAssertEqual(got.format, "jpeg")
            }
        }
    }

    func testPiecesFromAnotherThreadWhileTheDecoderRuns() async throws {
        let body = try bytes("photo.jpg")
        let expected = try XCTUnwrap(try JpegFastPath.thumbnail(body, width: 160, height: 160, cover: false, quality: nil, maxPixels: 100_000_000))
        let decodes = try (0..<4).map { _ in try makeDecode(160, 160) }   // at least 4 decode at once on any machine
        await withTaskGroup(of: Void.self) { group in
            for decode in decodes {
                group.addTask { Self.feed(decode, body, piece: 3001, pauseEvery: 10) }
            }
        }
        for decode in decodes { XCTAssertEqual(decode.result(for: body)?.bytes, expected.image.bytes) }
    }

    func testCutFailedOrMismatchedBodiesGiveNil() throws {
        let body = try bytes("photo.jpg")
        let half = Array(body.prefix(body.count / 2))

        let cut = try makeDecode()
        Self.feed(cut, half, piece: 4096)   // the server closed early, but the transfer "completed"
        XCTAssertNil(cut.result(for: half), "a JPEG without its end is never a thumbnail (no grey rows)")

        let failed = try makeDecode()
        Self.feed(failed, body, piece: 4096, complete: false)
        XCTAssertNil(failed.result(for: body), "a transfer that failed is not used")

        let mismatched = try makeDecode()
        Self.feed(mismatched, body, piece: 4096)
        XCTAssertNil(mismatched.result(for: body + [0, 0]), "the result must be of exactly the body processed")

        let twice = try makeDecode()
        Self.feed(twice, body, piece: 4096)
        XCTAssertNotNil(twice.result(for: body))
        XCTAssertNil(twice.result(for: body), "a result is taken once")
    }

    func testDeclinesWhatTheFastPathDeclines() throws {
        for name in ["truncated.jpg", "icc.jpg", "cmyk.jpg", "orientation6.jpg", "alpha.png", "small.webp", "page.html"] {
            let body = try bytes(name)
            let decode = try makeDecode(100, 100)
            Self.feed(decode, body, piece: 1000)
            XCTAssertNil(decode.result(for: body), "\(name): left to libvips")
        }
        let big = try bytes("photo.jpg")
        let limited = try XCTUnwrap(JpegStreamDecode(width: 100, height: 100, cover: false, quality: nil, maxPixels: 1000, startDelay: 0))
        Self.feed(limited, big, piece: 4096)
        XCTAssertNil(limited.result(for: big), "over --max-pixels: libvips reports the limit")
    }

    func testOnlyASlowDownloadIsDecodedWhileItArrives() throws {
        let body = try bytes("photo.jpg")
        let expected = try XCTUnwrap(try JpegFastPath.thumbnail(body, width: 320, height: 320, cover: false, quality: nil, maxPixels: 100_000_000))
        let fast = try XCTUnwrap(JpegStreamDecode(width: 320, height: 320, cover: false, quality: nil, maxPixels: 100_000_000, startDelay: 0.2))
        Self.feed(fast, body, piece: 16384)
        XCTAssertNil(fast.result(for: body), "over before the start delay: left to the pool")

        let slow = try XCTUnwrap(JpegStreamDecode(width: 320, height: 320, cover: false, quality: nil, maxPixels: 100_000_000, startDelay: 0.05))
        let tap = slow.tap
        body.withUnsafeBytes { buf in
            let half = buf.count / 2
            tap.onData(tap.context, buf.baseAddress!, half)
            usleep(150_000)   // the rest arrives well after the start delay
            tap.onData(tap.context, buf.baseAddress! + half, buf.count - half)
        }
        tap.onEnd(tap.context, 1)
        XCTAssertEqual(slow.result(for: body)?.bytes, expected.image.bytes, "decoded while it arrived")
    }

    func testALargeProgressiveJPEGIsLeftToThePoolBoundedPath() throws {
        // Progressive: libjpeg keeps every coefficient (3-6 bytes a pixel). Streaming decodes run one
        // per transfer, outside the pool's width limit, so above 4 MP they decline; the fast path
        // on the whole body (two at a time on the pool) still makes the thumbnail.
        let body = try bytes("progressive-large.jpg")   // 2100x2000, progressive
        let decode = try makeDecode(200, 200)
        Self.feed(decode, body, piece: 4096)
        XCTAssertNil(decode.result(for: body))
        let fast = try XCTUnwrap(try JpegFastPath.thumbnail(body, width: 200, height: 200, cover: false, quality: nil, maxPixels: 100_000_000))
        XCTAssertEqual([fast.image.width, fast.image.height], [200, 190])
    }

    func testALargeImageKeptWholeIsLeftToThePoolBoundedPath() throws {
        // No resize (the box is larger than the image): the decode is the whole image, 2.1 MP here.
        let body = try bytes("large.jpg")   // 2100x1000, baseline
        let decode = try makeDecode(3000, 3000)
        Self.feed(decode, body, piece: 4096)
        XCTAssertNil(decode.result(for: body))
        let small = try makeDecode(300, 300)
        Self.feed(small, body, piece: 4096)
        XCTAssertEqual(small.result(for: body)?.width, 300, "resized, it streams: only rows are kept")
    }

    func threadCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
    }

    func testAnOwnerThatLeavesEarlyStopsTheDecoder() throws {
        let body = try bytes("photo.jpg")
        let before = try threadCount()
        for _ in 0..<20 {
            let decode = try makeDecode()
            let tap = decode.tap
            body.withUnsafeBytes { tap.onData(tap.context, $0.baseAddress!, body.count / 3) }
            // No end, no result: releasing ends the stream; the decoder thread finishes on its own.
        }
        var after = try threadCount()
        for _ in 0..<100 where after > before {
            usleep(20_000)
            after = try threadCount()
        }
        XCTAssertLessThanOrEqual(after, before, "every decoder thread ended")
        let empty = try makeDecode()
        empty.tap.onEnd(empty.tap.context, 1)
        XCTAssertNil(empty.result(for: []), "no byte: nothing was decoded")
    }

    func testATapOutlivesItsDecode() throws {
        // A shared download whose first caller was cancelled: that caller leaves at once (its decode
        // goes), while the transfer still feeds and ends the tap. The tap owns the stream: no
        // use after free (make sanitize's ASan reports one), and the stream goes with the last tap.
        let body = try bytes("photo.jpg")
        var decode: JpegStreamDecode? = try makeDecode(64, 64)
        let tap = try XCTUnwrap(decode?.tap)
        weak var owner = tap.owner
        decode = nil
        XCTAssertNotNil(owner, "the tap keeps the stream")
        body.withUnsafeBytes { tap.onData(tap.context, $0.baseAddress!, $0.count) }
        tap.onEnd(tap.context, 1)
        withExtendedLifetime(tap) {}
    }

    func testTheProcessorStreamsWhatItsJpegFastPathWouldHandle() {
        let vips = VipsProcessor(), url = Source.http("http://127.0.0.1/a.jpg"), max: Int64 = 100_000_000
        XCTAssertNotNil(vips.streamingDecode(for: url, processing: Processing(width: 100, height: 100, format: .jpeg), maxPixels: max))
        XCTAssertNotNil(vips.streamingDecode(for: url, processing: Processing(width: 100, height: nil), maxPixels: max),
                        "format original: a JPEG source stays JPEG")
        XCTAssertNil(vips.streamingDecode(for: url, processing: .original, maxPixels: max), "no resize: the original is validated")
        XCTAssertNotNil(vips.streamingDecode(for: url, processing: Processing(width: 100, height: 100, format: .webp), maxPixels: max),
                        "WebP, PNG and AVIF: the same decode, the pixels encoded by libwebp, libpng or libvips' heifsave")
        XCTAssertNil(vips.streamingDecode(for: url, processing: Processing(width: 100, height: 100, format: .gif), maxPixels: max))
        XCTAssertNil(vips.streamingDecode(for: .file(path: "/tmp/a.jpg"), processing: Processing(width: 100, height: 100), maxPixels: max),
                     "a local file is read at once")
    }
}

private extension VipsProcessor {
    /// `streamingDecode` by the route the plan gives `processing` of `source` (the pipeline's call).
    func streamingDecode(for source: Source, processing: Processing, maxPixels: Int64) -> (any StreamingDecode)? {
        streamingDecode(for: source, processing: processing, route: ProcessingRoute(processing: processing, source: source),
                        maxPixels: maxPixels)
    }
}
