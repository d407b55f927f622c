import Foundation
import XCTest
@testable import ImageFetch

/// The libjpeg-only thumbnail path: exact sizes like libvips' thumbnail, declines (so libvips
/// decides) for everything it does not handle exactly, and pixels close to libvips' result.
final class JpegFastPathTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent(name)))
    }

    func fast(_ name: String, _ w: Int?, _ h: Int?, cover: Bool = false, quality: Int? = nil,
              maxPixels: Int64 = 100_000_000) throws -> JpegFastPath.Output? {
        try JpegFastPath.thumbnail(try bytes(name), width: w, height: h, cover: cover, quality: quality, maxPixels: maxPixels)
    }

    func testSizesMatchLibvipsThumbnail() throws {
        let cases: [(String, Int?, Int?, Bool, Int, Int)] = [
            ("photo.jpg", 320, 320, false, 320, 213), ("photo.jpg", 300, nil, false, 300, 200),
            ("photo.jpg", nil, 100, false, 150, 100), ("photo.jpg", 200, 200, true, 200, 200),
            ("photo.jpg", 300, 100, true, 300, 100), ("portrait.jpg", 320, 320, false, 240, 320),
            ("tiny.jpg", 500, 500, false, 100, 67), ("progressive.jpg", 64, 64, false, 64, 43),
            ("grey.jpg", 50, 50, false, 50, 34),
        ]
        for (name, w, h, cover, ew, eh) in cases {
            let out = try XCTUnwrap(try fast(name, w, h, cover: cover), "\(name) \(String(describing: w))x\(String(describing: h))")
            XCTAssertEqual([out.image.width, out.image.height], [ew, eh], "\(name)")
            let header = try VipsBridge.header(out.image.bytes)
            XCTAssertEqual(header.format, "jpeg")
            XCTAssertEqual([header.width, header.height], [ew, eh], "the encoded JPEG has the reported size")
            if name == "photo.jpg" { XCTAssertEqual([out.sourceWidth, out.sourceHeight], [1200, 800]) }
        }
    }

    func testDeclinesWhatLibvipsMustHandle() throws {
        XCTAssertNil(try fast("icc.jpg", 100, 100), "an ICC profile is colour-managed by libvips")
        XCTAssertNil(try fast("cmyk.jpg", 100, 100), "CMYK")
        XCTAssertNil(try fast("orientation6.jpg", 100, 100), "EXIF orientation 6 is rotated by libvips")
        XCTAssertNil(try fast("alpha.png", 100, 100), "not a JPEG")
        XCTAssertNil(try fast("empty.jpg", 100, 100))
        XCTAssertNil(try fast("photo.jpg", 100, 100, maxPixels: 1000), "libvips reports the pixel limit")
    }

    /// A libjpeg warning (truncation, corrupt data) fails the image outright, naming libjpeg's complaint:
    /// libvips, given the same bytes, would decode them with the same libjpeg and check racily.
    func testCorruptOrTruncatedJpegsFail() throws {
        let photo = try bytes("photo.jpg")
        let halfClosed = Array(photo.prefix(photo.count / 2)) + [0xFF, 0xD9]
        let cases: [(String, [UInt8], String)] = [
            ("truncated.jpg", try bytes("truncated.jpg"), "Premature end of JPEG file"),
            ("half closed with FF D9", halfClosed, "Corrupt JPEG data: premature end of data segment"),
            ("last 5% cut", Array(photo.prefix(photo.count * 95 / 100)), "Premature end of JPEG file"),
        ]
        for (name, body, message) in cases {
            for (w, h) in [(100, 100), (1200, 800), (600, nil)] as [(Int, Int?)] {
                XCTAssertThrowsError(try JpegFastPath.thumbnail(body, width: w, height: h, cover: false, quality: nil,
                                                               maxPixels: 100_000_000), name) { error in
                    XCTAssertEqual((error as? FetchError)?.code, "invalid_image", name)
                    XCTAssertTrue("\(error)".contains(message) || (error as? FetchError)?.message.contains(message) == true,
                                  "\(name): \(error)")
                }
            }
            XCTAssertEqual(JpegFastPath.check(body, maxPixels: 100_000_000), .corrupt(message), name)
        }
    }

    /// Every processing path fails a corrupt JPEG with libjpeg's message, libvips' included, and the
    /// check `cache verify` uses says why; the whole file passes all of them.
    func testVipsProcessorFailsCorruptJpegsOnEveryPath() throws {
        let photo = try bytes("photo.jpg"), icc = try bytes("icc.jpg")
        let processings = [Processing(width: 50, height: 50), Processing(width: 50, height: 50, format: .webp),
                           Processing(), Processing(format: .png), Processing(format: .jpeg, quality: 50)]
        for (name, whole) in [("photo.jpg", photo), ("icc.jpg", icc)] {
            let damaged = Array(whole.prefix(whole.count / 2)) + [0xFF, 0xD9]
            for processing in processings {
                XCTAssertNoThrow(try VipsProcessor().process(whole, with: processing, maxPixels: 100_000_000), "\(name) \(processing)")
                XCTAssertThrowsError(try VipsProcessor().process(damaged, with: processing, maxPixels: 100_000_000),
                                     "\(name) \(processing.identifier)") { error in
                    XCTAssertEqual((error as? FetchError)?.code, "invalid_image")
                    XCTAssertTrue((error as? FetchError)?.message.contains("premature end of data segment") == true, "\(error)")
                }
            }
            XCTAssertNil(VipsProcessor().decodeFailure(whole), name)
            XCTAssertEqual(VipsProcessor().decodeFailure(damaged), "libjpeg: Corrupt JPEG data: premature end of data segment", name)
        }
    }

    /// Raw RGB pixels of an encoded image (libvips writes a binary PPM: "P6 W H 255\n" + pixels).
    static func pixels(_ encoded: [UInt8]) throws -> [UInt8] {
        let ppm = try VipsBridge.thumbnail(encoded, width: nil, height: nil, cover: false, suffix: ".ppm", quality: nil).bytes
        var newlines = 0
        var start = 0
        for (i, b) in ppm.enumerated() where b == 0x0A || b == 0x20 {
            newlines += 1
            if newlines == 4 { start = i + 1; break }
        }
        return Array(ppm[start...])
    }

    func testPixelsAreCloseToLibvipsThumbnail() throws {
        let ours = try XCTUnwrap(try fast("photo.jpg", 320, 320, quality: 95)).image.bytes
        let theirs = try VipsBridge.thumbnail(try bytes("photo.jpg"), width: 320, height: 320, cover: false, suffix: ".jpg", quality: 95).bytes
        let a = try Self.pixels(ours), b = try Self.pixels(theirs)
        XCTAssertEqual(a.count, b.count)
        XCTAssertEqual(a.count, 320 * 213 * 3)
        let mse = zip(a, b).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(a.count)
        let psnr = 10 * log10(255 * 255 / max(mse, 1e-9))
        XCTAssertGreaterThan(psnr, 35, "PSNR against libvips' thumbnail: \(psnr) dB")
        // And a grey or black image would be far off: the mean brightness matches too.
        let meanA = a.reduce(0.0) { $0 + Double($1) } / Double(a.count), meanB = b.reduce(0.0) { $0 + Double($1) } / Double(b.count)
        XCTAssertEqual(meanA, meanB, accuracy: 2)
    }

    func testQualityChangesSize() throws {
        let low = try XCTUnwrap(try fast("photo.jpg", 320, 320, quality: 20))
        let high = try XCTUnwrap(try fast("photo.jpg", 320, 320, quality: 95))
        XCTAssertLessThan(low.image.bytes.count, high.image.bytes.count)
    }

    func testConcurrentUse() throws {
        let data = try bytes("photo.jpg")
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            let out = try? JpegFastPath.thumbnail(data, width: 50 + i, height: nil, cover: false, quality: nil, maxPixels: 100_000_000)
            XCTAssertEqual(out?.image.width, 50 + i)
        }
    }

    // MARK: - validating originals without libvips

    func testValidateGivesTheStoredSizeOfCompleteJPEGs() throws {
        let cases: [(String, Int, Int)] = [("photo.jpg", 1200, 800), ("progressive.jpg", 1200, 800), ("grey.jpg", 0, 0),
                                           ("orientation6.jpg", 300, 200), ("cmyk.jpg", 300, 200), ("icc.jpg", 300, 200)]
        for (name, w, h) in cases {
            let body = try bytes(name)
            let size = try XCTUnwrap(try JpegFastPath.validate(body, maxPixels: 100_000_000), name)
            let header = try VipsBridge.header(body)
            XCTAssertEqual([size.width, size.height], [header.width, header.height], "\(name): the size libvips reports")
            if w > 0 { XCTAssertEqual([size.width, size.height], [w, h], name) }
        }
    }

    func testValidateLeavesEverythingDoubtfulToLibvipsAndFailsCorruptJpegs() throws {
        let photo = try bytes("photo.jpg")
        XCTAssertEqual(JpegFastPath.check(try bytes("truncated.jpg"), maxPixels: 100_000_000), .corrupt("Premature end of JPEG file"))
        XCTAssertEqual(JpegFastPath.check(Array(photo.prefix(photo.count - 2)), maxPixels: 100_000_000),
                       .corrupt("Premature end of JPEG file"), "no end marker")
        XCTAssertEqual(JpegFastPath.check(try bytes("alpha.png"), maxPixels: 100_000_000), .undecided, "not a JPEG")
        XCTAssertEqual(JpegFastPath.check([], maxPixels: 100_000_000), .undecided, "empty")
        XCTAssertEqual(JpegFastPath.check(photo, maxPixels: 1000), .undecided, "over the pixel limit: libvips reports it")
        var corrupt = photo
        for i in stride(from: photo.count / 2, to: photo.count / 2 + 64, by: 1) { corrupt[i] = 0xFF }
        guard case .corrupt = JpegFastPath.check(corrupt, maxPixels: 100_000_000) else {
            return XCTFail("corrupt entropy data is a libjpeg warning")
        }
        XCTAssertThrowsError(try JpegFastPath.validate(corrupt, maxPixels: 100_000_000))
    }
}

private extension VipsProcessor {
    /// `process` by the route the plan gives `processing` (the pipeline's call).
    func process(_ bytes: [UInt8], with processing: Processing, maxPixels: Int64) throws(FetchError) -> ProcessedImage {
        try process(bytes, with: processing, route: ProcessingRoute(processing: processing), maxPixels: maxPixels, placeholders: false)
    }
}
