import XCTest
@testable import ImageFetch

final class VipsBridgeTests: XCTestCase {
    /// Tests/Fixtures, found relative to this file.
    static let fixtures: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)  // ImageFetchTests/VipsBridgeTests.swift
        return parts.joined(separator: "/") + "/Fixtures/"
    }()

    static func fixture(_ name: String) throws -> [UInt8] {
        let path = fixtures + name
        guard let data = FileManager.default.contents(atPath: path) else {
            throw XCTSkip("missing fixture \(path)")
        }
        return [UInt8](data)
    }

    func fixture(_ name: String) throws -> [UInt8] { try Self.fixture(name) }

    override func setUpWithError() throws {
        try VipsBridge.load()
    }

    // MARK: - load

    func testLoadIsIdempotent() throws {
        try VipsBridge.load()
        try VipsBridge.load()
        VipsBridge.setConcurrency(1)
    }

    // MARK: - header

    func testHeaderJPEG() throws {
        let h = try VipsBridge.header(fixture("photo.jpg"))
        XCTAssertEqual(h.width, 1200)
        XCTAssertEqual(h.height, 800)
        XCTAssertEqual(h.format, "jpeg")
        XCTAssertEqual(h.loader, "jpegload_buffer")
        XCTAssertEqual(h.bands, 3)
        XCTAssertFalse(h.hasAlpha)
        XCTAssertEqual(h.pages, 1)

        let p = try VipsBridge.header(fixture("portrait.jpg"))
        XCTAssertEqual([p.width, p.height], [600, 800])
        let t = try VipsBridge.header(fixture("tiny.jpg"))
        XCTAssertEqual([t.width, t.height], [100, 67])
    }

    func testHeaderPNGWithAlpha() throws {
        let h = try VipsBridge.header(fixture("alpha.png"))
        XCTAssertEqual([h.width, h.height], [400, 300])
        XCTAssertEqual(h.format, "png")
        XCTAssertEqual(h.bands, 4)
        XCTAssertTrue(h.hasAlpha)
    }

    func testHeaderWebP() throws {
        let h = try VipsBridge.header(fixture("small.webp"))
        XCTAssertEqual([h.width, h.height], [300, 200])
        XCTAssertEqual(h.format, "webp")
    }

    func testHeaderGIF() throws {
        let h = try VipsBridge.header(fixture("small.gif"))
        XCTAssertEqual([h.width, h.height], [200, 150])
        XCTAssertEqual(h.format, "gif")
        XCTAssertGreaterThanOrEqual(h.pages, 1)
    }

    func testHeaderOfBombDoesNotDecode() throws {
        let h = try VipsBridge.header(fixture("bomb.png"))
        XCTAssertEqual([h.width, h.height], [30000, 30000])
        XCTAssertEqual(h.format, "png")
    }

    func testHeaderRejectsEmptyAndNonImages() throws {
        XCTAssertThrowsError(try VipsBridge.header(fixture("empty.jpg"))) { error in
            XCTAssertFalse((error as? VipsFailure)?.message.isEmpty ?? true)
        }
        XCTAssertThrowsError(try VipsBridge.header(fixture("page.html"))) { error in
            XCTAssertFalse((error as? VipsFailure)?.message.isEmpty ?? true)
        }
        XCTAssertThrowsError(try VipsBridge.header([]))
    }

    func testFormatNameFromLoader() {
        XCTAssertEqual(VipsBridge.formatName(loader: "tiffload_buffer", bytes: []), "tiff")
        XCTAssertEqual(VipsBridge.formatName(loader: "svgload_buffer", bytes: []), "svg")
        XCTAssertEqual(VipsBridge.formatName(loader: "heifload_buffer", bytes: []), "heif")
        let avifFtyp: [UInt8] = [0, 0, 0, 0x1c] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("avifmif1miaf".utf8)
        XCTAssertEqual(VipsBridge.formatName(loader: "heifload_buffer", bytes: avifFtyp), "avif")
        let heicFtyp: [UInt8] = [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
        XCTAssertEqual(VipsBridge.formatName(loader: "heifload_buffer", bytes: heicFtyp), "heif")
    }

    // MARK: - validate

    func testValidate() throws {
        XCTAssertNoThrow(try VipsBridge.validate(fixture("photo.jpg")))
        XCTAssertNoThrow(try VipsBridge.validate(fixture("alpha.png")))
        XCTAssertThrowsError(try VipsBridge.validate(fixture("truncated.jpg"))) { error in
            XCTAssertFalse((error as? VipsFailure)?.message.isEmpty ?? true)
        }
        XCTAssertThrowsError(try VipsBridge.validate(fixture("empty.jpg")))
        XCTAssertThrowsError(try VipsBridge.validate(fixture("page.html")))
    }

    // MARK: - thumbnail geometry

    func testThumbnailFitsInside() throws {
        let out = try VipsBridge.thumbnail(fixture("photo.jpg"), width: 320, height: 320, cover: false, suffix: ".jpg", quality: 80)
        XCTAssertEqual([out.width, out.height], [320, 213])
        let h = try VipsBridge.header(out.bytes)
        XCTAssertEqual([h.width, h.height], [320, 213])
        XCTAssertEqual(h.format, "jpeg")
    }

    func testThumbnailCoverIsExact() throws {
        let out = try VipsBridge.thumbnail(fixture("photo.jpg"), width: 200, height: 200, cover: true, suffix: ".jpg", quality: nil)
        XCTAssertEqual([out.width, out.height], [200, 200])
        let h = try VipsBridge.header(out.bytes)
        XCTAssertEqual([h.width, h.height], [200, 200])
    }

    func testThumbnailWidthOnly() throws {
        let out = try VipsBridge.thumbnail(fixture("photo.jpg"), width: 300, height: nil, cover: false, suffix: ".jpg", quality: nil)
        XCTAssertEqual([out.width, out.height], [300, 200])
    }

    func testThumbnailHeightOnly() throws {
        let out = try VipsBridge.thumbnail(fixture("portrait.jpg"), width: nil, height: 400, cover: false, suffix: ".jpg", quality: nil)
        XCTAssertEqual([out.width, out.height], [300, 400])
        let out2 = try VipsBridge.thumbnail(fixture("photo.jpg"), width: nil, height: 100, cover: false, suffix: ".png", quality: nil)
        XCTAssertEqual([out2.width, out2.height], [150, 100])
    }

    func testThumbnailNeverUpscales() throws {
        let out = try VipsBridge.thumbnail(fixture("tiny.jpg"), width: 500, height: 500, cover: false, suffix: ".jpg", quality: nil)
        XCTAssertEqual([out.width, out.height], [100, 67])
        let unconstrained = try VipsBridge.thumbnail(fixture("tiny.jpg"), width: nil, height: nil, cover: false, suffix: ".png", quality: nil)
        XCTAssertEqual([unconstrained.width, unconstrained.height], [100, 67])
    }

    // MARK: - encoding

    func testFormatConversion() throws {
        let photo = try fixture("photo.jpg")
        let png = try VipsBridge.thumbnail(photo, width: 240, height: 240, cover: false, suffix: ".png", quality: 80)
        let pngHeader = try VipsBridge.header(png.bytes)
        XCTAssertEqual(pngHeader.format, "png")
        XCTAssertTrue(pngHeader.loader.hasPrefix("pngload"))
        XCTAssertEqual([pngHeader.width, pngHeader.height], [240, 160])

        let webp = try VipsBridge.thumbnail(photo, width: 240, height: 240, cover: false, suffix: ".webp", quality: 75)
        let webpHeader = try VipsBridge.header(webp.bytes)
        XCTAssertEqual(webpHeader.format, "webp")
        XCTAssertTrue(webpHeader.loader.hasPrefix("webpload"))
        XCTAssertEqual([webpHeader.width, webpHeader.height], [240, 160])
    }

    func testQualityAffectsSize() throws {
        let photo = try fixture("photo.jpg")
        let low = try VipsBridge.thumbnail(photo, width: 600, height: 600, cover: false, suffix: ".jpg", quality: 20)
        let high = try VipsBridge.thumbnail(photo, width: 600, height: 600, cover: false, suffix: ".jpg", quality: 95)
        XCTAssertLessThan(low.bytes.count, high.bytes.count)
    }

    func testTruncatedThumbnailThrows() throws {
        XCTAssertThrowsError(
            try VipsBridge.thumbnail(fixture("truncated.jpg"), width: 200, height: 200, cover: false, suffix: ".jpg", quality: nil)
        ) { error in
            XCTAssertFalse((error as? VipsFailure)?.message.isEmpty ?? true)
        }
        // The error buffer was consumed: the next good thumbnail is unaffected.
        XCTAssertNoThrow(try VipsBridge.thumbnail(fixture("tiny.jpg"), width: 50, height: 50, cover: false, suffix: ".jpg", quality: nil))
    }

    /// libvips keeps one error buffer for the whole process: failures on several threads at once
    /// must still each report their own input's reason.
    func testConcurrentFailuresEachReportTheirOwnReason() async throws {
        let jpeg = try fixture("truncated.jpg")
        let png = Array(try fixture("alpha.png").dropLast(200))   // cut inside its image data
        let pngReason = try XCTUnwrap(Self.failure(png)), jpegReason = try XCTUnwrap(Self.failure(jpeg))
        XCTAssertNotEqual(pngReason, jpegReason)
        let messages = await withTaskGroup(of: (Bool, String?).self) { group in
            for i in 0..<24 {
                let isPNG = i % 2 == 0
                group.addTask { (isPNG, VipsBridgeTests.failure(isPNG ? png : jpeg)) }
            }
            var all: [(Bool, String?)] = []
            for await m in group { all.append(m) }
            return all
        }
        for (isPNG, message) in messages {
            XCTAssertEqual(message, isPNG ? pngReason : jpegReason, isPNG ? "the PNG's own reason" : "the JPEG's own reason")
        }
    }

    static func failure(_ bytes: [UInt8]) -> String? {
        do {
            _ = try VipsBridge.thumbnail(bytes, width: 100, height: 100, cover: false, suffix: ".jpg", quality: nil)
            return nil
        } catch {
            return error.message
        }
    }

    func testThumbnailRejectsGarbage() throws {
        XCTAssertThrowsError(try VipsBridge.thumbnail(fixture("page.html"), width: 100, height: 100, cover: false, suffix: ".jpg", quality: nil))
        XCTAssertThrowsError(try VipsBridge.thumbnail(fixture("empty.jpg"), width: 100, height: 100, cover: false, suffix: ".jpg", quality: nil))
        XCTAssertThrowsError(try VipsBridge.thumbnail(fixture("tiny.jpg"), width: 50, height: 50, cover: false, suffix: ".nope", quality: nil))
    }

    func testAlphaPNGKeepsAlpha() throws {
        let out = try VipsBridge.thumbnail(fixture("alpha.png"), width: 200, height: 200, cover: false, suffix: ".png", quality: nil)
        XCTAssertEqual([out.width, out.height], [200, 150])
        let h = try VipsBridge.header(out.bytes)
        XCTAssertTrue(h.hasAlpha)
        XCTAssertEqual(h.bands, 4)
    }

    func testGIFOutput() throws {
        let out = try VipsBridge.thumbnail(fixture("small.gif"), width: 100, height: 100, cover: false, suffix: ".gif", quality: nil)
        XCTAssertEqual(try VipsBridge.header(out.bytes).format, "gif")
    }

    func testCanSave() {
        XCTAssertTrue(VipsBridge.canSave(suffix: ".jpg"))
        XCTAssertTrue(VipsBridge.canSave(suffix: ".png"))
        XCTAssertTrue(VipsBridge.canSave(suffix: ".webp"))
        XCTAssertFalse(VipsBridge.canSave(suffix: ".nope"))
    }

    func testAVIFNeverCrashes() throws {
        guard VipsBridge.canSave(suffix: ".avif") else {
            throw XCTSkip("this libvips build has no .avif buffer saver")
        }
        let photo = try fixture("photo.jpg")
        do throws(VipsFailure) {
            let out = try VipsBridge.thumbnail(photo, width: 160, height: 160, cover: false, suffix: ".avif", quality: 50)
            XCTAssertEqual([out.width, out.height], [160, 107])
            let h = try VipsBridge.header(out.bytes)
            XCTAssertEqual([h.width, h.height], [160, 107])
            XCTAssertEqual(h.format, "avif")
        } catch {
            XCTAssertFalse(error.message.isEmpty)
        }
    }

    // MARK: - concurrency

    func testConcurrentThumbnails() async throws {
        let photo = try fixture("photo.jpg")
        let results = await withTaskGroup(of: Result<EncodedImage, VipsFailure>.self) { group in
            for i in 0..<8 {
                let suffix = i.isMultiple(of: 2) ? ".jpg" : ".webp"
                group.addTask {
                    Result { () throws(VipsFailure) -> EncodedImage in
                        try VipsBridge.thumbnail(photo, width: 256, height: 256, cover: i % 3 == 0, suffix: suffix, quality: 70)
                    }
                }
            }
            var all: [Result<EncodedImage, VipsFailure>] = []
            for await r in group { all.append(r) }
            return all
        }
        XCTAssertEqual(results.count, 8)
        for r in results {
            switch r {
            case .success(let img):
                XCTAssertTrue([[256, 171], [256, 256]].contains([img.width, img.height]), "\(img.width)x\(img.height)")
                XCTAssertNoThrow(try VipsBridge.header(img.bytes))
            case .failure(let e):
                XCTFail("concurrent thumbnail failed: \(e.message)")
            }
        }
    }
}
