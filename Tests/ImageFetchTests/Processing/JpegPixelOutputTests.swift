import CCodecs
import Foundation
import XCTest
@testable import ImageFetch

/// JPEG sources to WebP and PNG without libvips (issue 44): libjpeg's decode and the own Lanczos3
/// resize, the pixels encoded by libwebp or libpng (CCodecs) as libvips' savers would encode them.
final class JpegPixelOutputTests: XCTestCase {
    func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: JpegFastPathTests.fixtures.appendingPathComponent(name)))
    }

    func fast(_ body: [UInt8], _ w: Int?, _ h: Int?, cover: Bool = false, quality: Int? = nil, as output: ImageFormat,
              placeholders: Bool = false) throws -> JpegFastPath.Output? {
        try JpegFastPath.thumbnail(body, width: w, height: h, cover: cover, quality: quality, maxPixels: 100_000_000,
                                   placeholders: placeholders, output: output)
    }

    func testTheRouteKeepsWebPAndPNGOnTheJpegPath() {
        let file = Source.file(path: "/tmp/a.jpg"), url = Source.http("http://127.0.0.1/a.jpg")
        for format in [ImageFormat.webp, .png] {
            XCTAssertEqual(ProcessingRoute(processing: Processing(width: 100, height: 100, format: format), source: file),
                           .jpegThumbnail(streamed: false, output: format))
            XCTAssertEqual(ProcessingRoute(processing: Processing(width: 100, height: nil, format: format), source: url),
                           .jpegThumbnail(streamed: true, output: format))
            XCTAssertEqual(ProcessingRoute(processing: Processing(format: format)).jpegThumbnailOutput, format,
                           "a conversion without a resize: the source's size fits")
            var sharpened = Processing(width: 100, height: 100, format: format)
            sharpened.sharpen = true
            XCTAssertEqual(ProcessingRoute(processing: sharpened), .vips, "what only libvips does")
        }
        XCTAssertEqual(ProcessingRoute(processing: Processing(width: 100, height: 100)).jpegThumbnailOutput, .jpeg)
        XCTAssertEqual(ProcessingRoute(processing: Processing(width: 100, height: 100, format: .avif)).jpegThumbnailOutput, .avif)
        XCTAssertFalse(ProcessingRoute(processing: Processing(width: 100, height: 100, format: .avif)).mayNeedOnlyLibjpeg,
                       "AVIF is libvips' to write: loaded ahead")
        XCTAssertTrue(ProcessingRoute(processing: Processing(width: 100, height: 100, format: .webp)).mayNeedOnlyLibjpeg)
        XCTAssertEqual(ProcessingRoute(processing: Processing(width: 100, height: 100, format: .gif)), .vips)
        // -f auto: a PNG, WebP or GIF still is PixelSourcePath's when libjpeg, libwebp and libpng write every candidate.
        var auto = Processing(width: 100, height: 100, format: .auto)
        XCTAssertEqual(ProcessingRoute(processing: auto), .autoFormat)
        XCTAssertFalse(ProcessingRoute(processing: auto).mayNeedOnlyLibjpeg, "a JPEG source to -f auto is libvips'")
        auto.accept = [.avif, .webp]
        XCTAssertEqual(ProcessingRoute(processing: auto), .vips, "AVIF is libvips' to write")
        auto.accept = nil
        auto.sharpen = true
        XCTAssertEqual(ProcessingRoute(processing: auto), .vips, "what only libvips does")
    }

    func testSizesAndFormatsAreLibvipsThumbnails() throws {
        let cases: [(String, Int?, Int?, Bool, Int, Int)] = [
            ("photo.jpg", 320, 320, false, 320, 213), ("photo.jpg", 200, 200, true, 200, 200), ("photo.jpg", nil, nil, false, 1200, 800),
            ("portrait.jpg", 320, 320, false, 240, 320), ("progressive.jpg", 64, 64, false, 64, 43), ("grey.jpg", 50, 50, false, 50, 34),
        ]
        for (name, w, h, cover, ew, eh) in cases {
            for format in [ImageFormat.webp, .png] {
                let out = try XCTUnwrap(try fast(try bytes(name), w, h, cover: cover, as: format), "\(name) -> \(format)")
                XCTAssertEqual([out.image.width, out.image.height], [ew, eh], "\(name) -> \(format)")
                let header = try VipsBridge.header(out.image.bytes)
                XCTAssertEqual(header.format, format.rawValue)
                XCTAssertEqual([header.width, header.height], [ew, eh], "\(name) -> \(format): the file has the reported size")
                let processed = out.processed
                XCTAssertEqual([processed.format, processed.sourceFormat], [format.rawValue, "jpeg"])
                if name == "photo.jpg" { XCTAssertEqual([processed.sourceWidth, processed.sourceHeight], [1200, 800]) }
            }
        }
    }

    /// The same pixels through libvips' pngsave and webpsave (libvips re-encodes the lossless PNG
    /// unresized) give these very files: the same settings, the same chunks.
    func testTheFilesAreLibvipsOwnForTheSamePixels() throws {
        let photo = try bytes("photo.jpg")
        for quality in [nil, 90] as [Int?] {
            let png = try XCTUnwrap(try fast(photo, 320, 320, as: .png)).image.bytes
            let webp = try XCTUnwrap(try fast(photo, 320, 320, quality: quality, as: .webp)).image.bytes
            let vipsPNG = try VipsBridge.thumbnail(png, width: nil, height: nil, cover: false, suffix: ".png", quality: nil).bytes
            XCTAssertEqual(png, vipsPNG, "pngsave's file")
            let vipsWebP = try VipsBridge.thumbnail(png, width: nil, height: nil, cover: false, suffix: ".webp", quality: quality).bytes
            XCTAssertEqual(webp, WebPMetadata.removingMetadata(vipsWebP, keepingEXIF: false), "webpsave's file at \(String(describing: quality))")
        }
    }

    /// AVIF: the same pixels, saved by libvips' heifsave from memory (its decode and resize skipped).
    func testAVIFIsSavedByLibvipsFromThePixels() throws {
        guard VipsBridge.canSave(suffix: ".avif") else { throw XCTSkip("this libvips build cannot write AVIF") }
        let photo = try bytes("photo.jpg")
        for (name, body, w, h) in [("photo.jpg", photo, 160, 107), ("grey.jpg", try bytes("grey.jpg"), 50, 34)] {
            let out = try XCTUnwrap(try fast(body, w, w, as: .avif), name)
            let header = try VipsBridge.header(out.image.bytes)
            XCTAssertEqual([header.format, "\(header.width)x\(header.height)"], ["avif", "\(w)x\(h)"], name)
            XCTAssertEqual(out.processed.format, "avif")
            let ours = try JpegFastPathTests.pixels(out.image.bytes)
            let theirs = try JpegFastPathTests.pixels(try VipsBridge.thumbnail(body, width: w, height: w, cover: false, suffix: ".avif", quality: nil).bytes)
            XCTAssertEqual(ours.count, theirs.count, name)
            let mse = zip(ours, theirs).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(max(ours.count, 1))
            XCTAssertGreaterThan(10 * log10(255 * 255 / max(mse, 1e-9)), 30, "\(name): PSNR against libvips' own AVIF")
        }
        let low = try XCTUnwrap(try fast(photo, 160, 160, quality: 20, as: .avif)).image.bytes.count
        let high = try XCTUnwrap(try fast(photo, 160, 160, quality: 90, as: .avif)).image.bytes.count
        XCTAssertLessThan(low, high, "the quality reaches the saver")
    }

    func testPixelsAreCloseToLibvipsThumbnail() throws {
        let photo = try bytes("photo.jpg")
        let ours = try XCTUnwrap(try fast(photo, 320, 320, as: .png)).image.bytes
        let theirs = try VipsBridge.thumbnail(photo, width: 320, height: 320, cover: false, suffix: ".png", quality: nil).bytes
        let a = try JpegFastPathTests.pixels(ours), b = try JpegFastPathTests.pixels(theirs)
        XCTAssertEqual(a.count, 320 * 213 * 3)
        XCTAssertEqual(a.count, b.count)
        let mse = zip(a, b).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(a.count)
        XCTAssertGreaterThan(10 * log10(255 * 255 / max(mse, 1e-9)), 35, "PSNR against libvips' thumbnail")
    }

    /// A PNG's pHYs is the resolution libvips reads from the JPEG: EXIF's (both axes, a known unit),
    /// else JFIF's, else 72 dpi. A form of EXIF field whose reading was not checked against libvips
    /// is left to libvips; WebP carries none.
    func testPNGResolutionIsLibvipsOrLeftToIt() throws {
        let photo = try bytes("photo.jpg")   // neither EXIF nor JFIF: 72 dpi
        let r = { (n: UInt32, d: UInt32) in Self.le(n) + Self.le(d) }
        let cases: [(String, [(UInt16, UInt16, [UInt8])])] = [
            ("no EXIF resolution", []),
            ("300 x 300 dpi", [(0x011A, 5, r(300, 1)), (0x011B, 5, r(300, 1)), (0x0128, 3, [2, 0])]),
            ("1000/3 dpi, no unit", [(0x011A, 5, r(1000, 3)), (0x011B, 5, r(1000, 3))]),
            ("50 x 50 per cm", [(0x011A, 5, r(50, 1)), (0x011B, 5, r(50, 1)), (0x0128, 3, [3, 0])]),
            ("X alone", [(0x011A, 5, r(300, 1)), (0x0128, 3, [2, 0])]),
            ("unknown unit", [(0x011A, 5, r(300, 1)), (0x011B, 5, r(300, 1)), (0x0128, 3, [4, 0])]),
            ("SHORTs", [(0x011A, 3, [44, 1]), (0x011B, 3, [44, 1])]),
        ]
        for (name, entries) in cases {
            let body = Self.withEXIF(photo, entries)
            let png = try XCTUnwrap(try fast(body, 100, 100, as: .png), name).image.bytes
            let vipsPNG = try VipsBridge.thumbnail(body, width: 100, height: 100, cover: false, suffix: ".png", quality: nil).bytes
            XCTAssertNotNil(Self.pHYs(png), name)
            XCTAssertEqual(Self.pHYs(png), Self.pHYs(vipsPNG), name)
        }
        XCTAssertEqual(Self.pHYs(try XCTUnwrap(try fast(photo, 100, 100, as: .png)).image.bytes), [2835, 2835, 1])
        for (name, entries) in [("a zero denominator", [(0x011A, 5, r(300, 0)), (0x011B, 5, r(300, 0))]),
                                ("a different Y", [(0x011A, 5, r(300, 1)), (0x011B, 5, r(150, 1))])] as [(String, [(UInt16, UInt16, [UInt8])])] {
            let body = Self.withEXIF(photo, entries)
            XCTAssertNil(try fast(body, 100, 100, as: .png), "\(name): left to libvips")
            XCTAssertNotNil(try fast(body, 100, 100, as: .webp), name)
        }
    }

    static func le(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }

    /// `jpeg` with an EXIF block first (little-endian TIFF; IFD0's entries: tag, type, one component,
    /// the value in place when it fits in 4 bytes, else after the IFD) instead of its own APP1s.
    static func withEXIF(_ jpeg: [UInt8], _ entries: [(UInt16, UInt16, [UInt8])]) -> [UInt8] {
        let u16 = { (v: UInt16) in [UInt8(v & 0xFF), UInt8(v >> 8)] }
        var ifd = u16(UInt16(entries.count)), extra: [UInt8] = []
        let base = 8 + 2 + entries.count * 12 + 4
        for (tag, type, value) in entries {
            ifd += u16(tag) + u16(type) + le(1)
            if value.count <= 4 { ifd += value + [UInt8](repeating: 0, count: 4 - value.count) } else {
                ifd += le(UInt32(base + extra.count))
                extra += value
            }
        }
        let tiff = Array("II".utf8) + [42, 0] + le(8) + ifd + le(0) + extra
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        // The source's own APP1 segments (its EXIF) are dropped: markers after SOI, while APPn.
        var rest = Array(jpeg.dropFirst(2))
        while rest.count > 4, rest[0] == 0xFF, rest[1] == 0xE1 {
            rest.removeFirst(2 + (Int(rest[2]) << 8 | Int(rest[3])))
        }
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8((app1.count + 2) >> 8), UInt8((app1.count + 2) & 0xFF)] + app1 + rest
    }

    /// The pHYs chunk's fields (x, y, unit) of a PNG.
    static func pHYs(_ png: [UInt8]) -> [UInt32]? {
        var i = 8
        while i + 8 <= png.count {
            let n = Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
            if Array(png[(i + 4)..<(i + 8)]) == Array("pHYs".utf8), i + 17 <= png.count {
                let u32 = { (o: Int) in UInt32(png[o]) << 24 | UInt32(png[o + 1]) << 16 | UInt32(png[o + 2]) << 8 | UInt32(png[o + 3]) }
                return [u32(i + 8), u32(i + 12), UInt32(png[i + 16])]
            }
            i += 12 + n
        }
        return nil
    }

    func testDeclinesWhatLibvipsMustHandleAndFailsCorruptJpegs() throws {
        for format in [ImageFormat.webp, .png] {
            for name in ["icc.jpg", "cmyk.jpg", "orientation6.jpg", "alpha.png"] {
                XCTAssertNil(try fast(try bytes(name), 100, 100, as: format), "\(name) -> \(format)")
            }
            for body in [try bytes("truncated.jpg"), Array(try bytes("photo.jpg").prefix(20_000)) + [0xFF, 0xD9]] {
                XCTAssertThrowsError(try fast(body, 100, 100, as: format)) { error in
                    XCTAssertEqual((error as? FetchError)?.code, "invalid_image", "\(format): \(error)")
                }
            }
        }
    }

    func testPlaceholdersComeFromTheSamePixels() throws {
        let photo = try bytes("photo.jpg")
        let jpeg = try XCTUnwrap(try fast(photo, 320, 320, as: .jpeg, placeholders: true))
        for format in [ImageFormat.webp, .png] {
            let out = try XCTUnwrap(try fast(photo, 320, 320, as: format, placeholders: true))
            XCTAssertEqual(out.small, jpeg.small, "\(format): the JPEG path's placeholder pixels")
            XCTAssertNotNil(out.processed.placeholders)
        }
    }

    func testStreamedDecodeGivesTheSameFile() throws {
        let body = try bytes("photo.jpg")
        for format in [ImageFormat.webp, .png] {
            let expected = try XCTUnwrap(try fast(body, 160, 160, as: format))
            let decode = try XCTUnwrap(JpegStreamDecode(width: 160, height: 160, cover: false, quality: nil, maxPixels: 100_000_000,
                                                        output: format, startDelay: 0))
            JpegStreamDecodeTests.feed(decode, body, piece: 4096)
            let got = try XCTUnwrap(decode.result(for: body), "\(format)")
            XCTAssertEqual(got.bytes, expected.image.bytes, "\(format)")
            XCTAssertEqual(got.format, format.rawValue)
        }
    }

    /// The resizer with alpha: colour is premultiplied for the filter, so a transparent pixel's
    /// colour (black here) darkens no edge, and alpha itself is filtered.
    func testAlphaEdgesHaveNoDarkFringe() throws {
        let w = 64, h = 8
        var rgba = [UInt8](repeating: 0, count: w * h * 4)   // transparent black...
        for y in 0..<h { for x in 0..<(w / 2) { rgba.replaceSubrange((y * w + x) * 4..<(y * w + x) * 4 + 4, with: [255, 40, 10, 255]) } }
        var out = ifc_pixels()
        let rc = rgba.withUnsafeMutableBufferPointer { buf in
            var input = ifc_pixels(data: buf.baseAddress, width: Int32(w), height: Int32(h), channels: 4, stride: w * 4)
            return ifc_resize(&input, 16, 2, &out)
        }
        XCTAssertEqual(rc, 0)
        defer { ifc_free(out.data) }
        let px = Array(UnsafeBufferPointer(start: out.data, count: 16 * 2 * 4))
        var edge = 0
        for x in 0..<16 where px[x * 4 + 3] > 0 {
            XCTAssertEqual(Int(px[x * 4]), 255, accuracy: 1, "pixel \(x): red stays red whatever its alpha (\(px[(x * 4)..<(x * 4 + 4)]))")
            XCTAssertEqual(Int(px[x * 4 + 1]), 40, accuracy: 2, "pixel \(x)")
            if px[x * 4 + 3] < 250 { edge += 1 }
        }
        XCTAssertGreaterThan(edge, 0, "the edge is partly transparent")
        XCTAssertEqual(Array(px[(12 * 4)..<(16 * 4)]), [UInt8](repeating: 0, count: 16), "transparent stays transparent")
        XCTAssertEqual(Array(px[0..<4]), [255, 40, 10, 255])
    }
}
