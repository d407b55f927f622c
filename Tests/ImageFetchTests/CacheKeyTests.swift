import XCTest
@testable import ImageFetch

final class CacheKeyTests: XCTestCase {
    let source = Source.http("https://example.com/a.jpg")

    private func key(_ p: Processing, _ s: Source? = nil) -> CacheKey { CacheKey(source: s ?? source, processing: p) }

    func testSameInputsSameKey() {
        let p = Processing(width: 320, height: 200, fit: .cover, format: .webp, quality: 80)
        XCTAssertEqual(key(p), key(Processing(width: 320, height: 200, fit: .cover, format: .webp, quality: 80)))
        XCTAssertEqual(key(.original).rawValue, key(Processing()).rawValue)
        let variant = EntryKey(identity: source.identity, kind: .image(PreEncoded(Processing(width: 100)), render: Processing.renderVersion), network: nil)
        XCTAssertEqual(key(Processing(width: 100)), CacheKey(variant), "a variant is keyed by the renderer's version too")
        var older = variant
        older.kind = .image(PreEncoded(Processing(width: 100)), render: Processing.renderVersion - 1)
        XCTAssertNotEqual(key(Processing(width: 100)), CacheKey(older))
    }

    /// Only headers, a cookie or credentials give a request a key other than the plain one.
    func testPlainKeyMatchesOnlyARequestWithoutANetworkPart() throws {
        let digest = CredentialDigest(secret: Array(repeating: 7, count: 32))
        for p in [Processing.original, Processing(width: 100, format: .webp)] {
            let plain = CacheKey(source: source, processing: p).rawValue
            XCTAssertEqual(try CacheKey(source: source, processing: p, network: NetworkOptions(), credentials: digest).rawValue, plain)
            var withHeader = NetworkOptions()
            withHeader.headers = [NetworkOptions.Header(name: "Authorization", value: "Bearer secret")]
            XCTAssertNotEqual(try CacheKey(source: source, processing: p, network: withHeader, credentials: digest).rawValue, plain)
            var withCookie = NetworkOptions()
            withCookie.cookie = "session=1"
            XCTAssertNotEqual(try CacheKey(source: source, processing: p, network: withCookie, credentials: digest).rawValue, plain)
        }
    }

    func testKeyIsStableAcrossRuns() {
        // The key is the digest of the canonical encoding (`KeyEncoding`) of what the entry holds:
        // pinned, so that a change of every key value is noticed (and said in the changelog).
        let bytes = KeyEncoding.bytes(EntryKey(identity: source.identity, image: Processing(width: 64, format: .webp, quality: 70),
                                               network: nil))
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self),
                       "{s6:schemes14:imgfetch-key 2s8:identitys25:https://example.com/a.jpgs4:kind{s5:image{s2:_0{s5:widthi64;" +
                       "s3:fits6:insides6:formats4:webps7:qualityi70;s6:linearb0;s10:background{s3:redi255;s5:greeni255;" +
                       "s4:bluei255;}}s6:renderi2;}}}")
        XCTAssertEqual(key(Processing(width: 64, format: .webp, quality: 70)).rawValue, SHA256.hex(bytes))
    }

    /// The thumbnail options of issue 24 at their defaults (centre crop, no sharpen, no upscale, no
    /// metadata kept) are nil once normalised: the pinned encoding above, so older keys stay.
    func testThumbnailOptionsAtTheirDefaultsKeepOlderKeys() {
        var p = Processing(width: 64, format: .webp, quality: 70)
        p.crop = .centre
        p.sharpen = false
        p.upscale = false
        p.keepMetadata = .init()
        XCTAssertEqual(key(p), key(Processing(width: 64, format: .webp, quality: 70)))
        var cover = Processing(width: 64, height: 64, fit: .cover)
        let plainCover = key(cover)
        cover.crop = .centre
        XCTAssertEqual(key(cover), plainCover, "--crop centre is cover as it always was")
        cover.crop = .attention
        XCTAssertNotEqual(key(cover), plainCover)
        XCTAssertEqual(cover.normalized.identifier, "w64-h64-cover-original-attention")
        var inside = Processing(width: 64)
        inside.crop = .attention
        XCTAssertEqual(key(inside), key(Processing(width: 64)), "a crop means nothing without cover")
        var gif = Processing(width: 64, format: .gif)
        gif.keepMetadata = .init(copyright: true)
        XCTAssertEqual(key(gif), key(Processing(width: 64, format: .gif)), "GIF carries no EXIF")
        var all = Processing(width: 64, format: .jpeg)
        all.sharpen = true
        all.upscale = true
        all.keepMetadata = .init(copyright: true, icc: true)
        XCTAssertEqual(all.normalized.identifier, "w64-inside-jpeg-sharpen-upscale-keep-copyright+icc")
        XCTAssertEqual(Processing.KeptMetadata(parsing: "icc,copyright"), .init(copyright: true, icc: true))
        XCTAssertNil(Processing.KeptMetadata(parsing: "icc,icc"))
        XCTAssertNil(Processing.KeptMetadata(parsing: "gps"))
        XCTAssertNil(Processing.KeptMetadata(parsing: ""))
    }

    /// Requests libjpeg cannot honour go to libvips.
    func testThumbnailOptionsRouteToLibvips() {
        XCTAssertTrue(ProcessingRoute(processing: Processing(width: 64, height: 64, fit: .cover)).makesJPEGThumbnail)
        var p = Processing(width: 64, height: 64, fit: .cover)
        p.crop = .attention
        XCTAssertEqual(ProcessingRoute(processing: p), .vips)
        for change in [{ (q: inout Processing) in q.sharpen = true }, { $0.upscale = true }, { $0.keepMetadata = .init(icc: true) }] {
            var q = Processing(width: 64)
            change(&q)
            XCTAssertEqual(ProcessingRoute(processing: q), .vips)
        }
    }

    func testTheEncodingIsUnambiguous() {
        // Strings are length-prefixed and containers bracketed: values that would run together in a
        // plain text form give different bytes.
        struct Pair: Encodable { var a: String; var b: String? }
        XCTAssertNotEqual(KeyEncoding.bytes(Pair(a: "x", b: "y")), KeyEncoding.bytes(Pair(a: "xy", b: nil)))
        XCTAssertNotEqual(KeyEncoding.bytes(Pair(a: "x", b: "")), KeyEncoding.bytes(Pair(a: "x", b: nil)))
        struct List: Encodable { var items: [String?] }
        XCTAssertNotEqual(KeyEncoding.bytes(List(items: [])), KeyEncoding.bytes(List(items: [nil])))
        XCTAssertNotEqual(KeyEncoding.bytes(List(items: ["a", "b"])), KeyEncoding.bytes(List(items: ["ab"])))
        struct Nested: Encodable { var inner: Pair; var after: String }
        XCTAssertEqual(String(decoding: KeyEncoding.bytes(Nested(inner: Pair(a: "1", b: nil), after: "2")), as: UTF8.self),
                       "{s5:inner{s1:as1:1}s5:afters1:2}", "a nested value is closed before the next field")
    }

    func testKeyIs64LowercaseHex() {
        for p in [Processing.original, Processing(width: 10), Processing(format: .png)] {
            let raw = key(p).rawValue
            XCTAssertEqual(raw.count, 64)
            XCTAssertTrue(raw.allSatisfy { "0123456789abcdef".contains($0) }, raw)
            XCTAssertEqual(key(p).description, raw)
        }
    }

    func testDifferentProcessingDifferentKey() {
        let base = Processing(width: 320, height: 200, fit: .inside, format: .jpeg, quality: 80)
        var variants: [Processing] = [base]
        var p = base; p.width = 321; variants.append(p)
        p = base; p.height = 201; variants.append(p)
        p = base; p.height = nil; variants.append(p)
        p = base; p.fit = .cover; variants.append(p)
        p = base; p.format = .webp; variants.append(p)
        p = base; p.quality = 81; variants.append(p)
        p = base; p.quality = nil; variants.append(p)
        variants.append(.original)
        let keys = Set(variants.map { key($0) })
        XCTAssertEqual(keys.count, variants.count)
    }

    func testDifferentSourceDifferentKey() {
        XCTAssertNotEqual(key(.original), key(.original, .http("https://example.com/b.jpg")))
        XCTAssertNotEqual(key(.original, .file(path: "/a.jpg")), key(.original, .http("https://example.com/a.jpg")))
        XCTAssertNotEqual(key(.original, .data(mediaType: "image/png", bytes: [1])),
                          key(.original, .data(mediaType: "image/png", bytes: [2])))
    }

    func testHexValidation() {
        let valid = key(.original).rawValue
        XCTAssertEqual(CacheKey(hex: valid), key(.original))
        XCTAssertEqual(CacheKey(hex: String(repeating: "0", count: 64))?.rawValue, String(repeating: "0", count: 64))
        XCTAssertNil(CacheKey(hex: ""))
        XCTAssertNil(CacheKey(hex: String(valid.dropLast())))
        XCTAssertNil(CacheKey(hex: valid + "0"))
        XCTAssertNil(CacheKey(hex: valid.uppercased()))
        XCTAssertNil(CacheKey(hex: String(valid.dropLast()) + "g"))
        XCTAssertNil(CacheKey(hex: "../" + String(valid.dropFirst(3))))
        XCTAssertNil(CacheKey(hex: String(repeating: "é", count: 32)))
    }

    func testProcessingIdentifiers() {
        XCTAssertEqual(Processing.original.identifier, "original")
        XCTAssertTrue(Processing.original.isOriginal)
        // Quality without a conversion or resize keeps the original bytes: still "original".
        XCTAssertEqual(Processing(quality: 50).identifier, "original")
        XCTAssertEqual(Processing(width: 320, height: 320, format: .jpeg, quality: 80).identifier, "w320-h320-inside-jpeg-q80")
        XCTAssertEqual(Processing(width: 320, height: 200, fit: .cover, format: .webp).identifier, "w320-h200-cover-webp")
        XCTAssertEqual(Processing(width: 100).identifier, "w100-inside-original")
        XCTAssertEqual(Processing(height: 50, quality: 60).identifier, "h50-inside-original-q60")
        XCTAssertEqual(Processing(format: .png).identifier, "png")
        // Quality means nothing to lossless formats: it is left out.
        XCTAssertEqual(Processing(format: .png, quality: 90).identifier, "png")
        XCTAssertEqual(Processing(format: .gif, quality: 90).identifier, "gif")
        XCTAssertEqual(Processing(format: .avif, quality: 40).identifier, "avif-q40")
        // Fit only matters with a resize.
        XCTAssertEqual(Processing(fit: .cover, format: .jpeg).identifier, "jpeg")
    }

    func testImageFormatNames() {
        XCTAssertEqual(ImageFormat(name: "JPG"), .jpeg)
        XCTAssertEqual(ImageFormat(name: "jpeg"), .jpeg)
        XCTAssertEqual(ImageFormat(name: "webp"), .webp)
        XCTAssertNil(ImageFormat(name: "bmp"))
        XCTAssertEqual(ImageFormat.jpeg.fileExtension, "jpg")
        XCTAssertTrue(ImageFormat.avif.isLossy)
        XCTAssertFalse(ImageFormat.png.isLossy)
    }
}
