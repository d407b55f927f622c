import Foundation
import XCTest
@testable import ImageFetch

/// The placeholder encoders against their reference implementations: each expected string was
/// computed from the same pixels by woltapp's C encoder (PyPI `blurhash-python`) and the ThumbHash
/// port of evanw's reference (PyPI `thumbhash-python`), base64 with padding.
final class PlaceholderEncoderTests: XCTestCase {
    /// The pattern the reference strings were computed from.
    static func pattern(_ w: Int, _ h: Int, alpha: Bool) -> RGBAImage {
        var p: [UInt8] = []
        for y in 0..<h {
            for x in 0..<w {
                p += [UInt8((x * 7 + y * 3) % 256), UInt8((x * x + y * 5) % 256), UInt8((x * y + 13) % 256),
                      alpha ? UInt8((x * 11 + y * 17) % 256) : 255]
            }
        }
        return RGBAImage(width: w, height: h, pixels: p)!
    }

    static let references: [(w: Int, h: Int, alpha: Bool, blurhash: String, thumbhash: String)] = [
        (32, 24, false, "LlHn+:0|VYv$R#RjwOOFR}sqSioe", "3RgOFYxAVphUeImFiGeIh5FfD4hn"),
        (100, 67, false, "L5Ho8#jB#5aHS?5$Ew1H8{v459zZ", "HwgGDYJ2djZmVwdkZWR3dv2OqI6A"),
        (7, 100, false, "LcGSf4%Ce*%c9GI;X9Rp1?j1r{SL", "3OgJKRJUYQiYk4WZz3iEmAc="),
        (40, 40, true, "LbG[~2R~1awHn4EMn6+gjWWUxGS$", "XviFDQYIBVYjlWZ6Zx9MnJCFpgFmNlpqxQ=="),
        (1, 1, false, "L0000DfZfZfZfZfZfZfZfZfZfZfZ", "gQcGHwAI9wiIh4hwj3CI+AiIcH/4AAAA"),
    ]

    func testBlurHashMatchesTheReferenceEncoder() {
        for r in Self.references {
            XCTAssertEqual(BlurHash.encode(Self.pattern(r.w, r.h, alpha: r.alpha)), r.blurhash, "\(r.w)x\(r.h)")
        }
    }

    func testThumbHashMatchesTheReferenceEncoder() {
        for r in Self.references {
            XCTAssertEqual(ThumbHash.encodeBase64(Self.pattern(r.w, r.h, alpha: r.alpha)), r.thumbhash, "\(r.w)x\(r.h)")
        }
    }

    func testThumbHashRefusesMoreThan100PixelsASide() {
        XCTAssertNil(ThumbHash.encode(Self.pattern(101, 10, alpha: false)))
    }

    func testPlaceholdersFitTheImageInside100x100First() {
        let big = Self.pattern(300, 150, alpha: false)
        let small = big.fitting(inside: 100)
        XCTAssertEqual([small.width, small.height], [100, 50])
        let p = Placeholders(of: big)
        XCTAssertEqual(p.thumbhash, ThumbHash.encodeBase64(small))
        XCTAssertEqual(p.blurhash, BlurHash.encode(small))
        XCTAssertTrue(BlurHash.isWellFormed(p.blurhash))
        XCTAssertTrue(ThumbHash.isWellFormed(p.thumbhash))
    }

    func testAverageColorIsWeightedByAlpha() {
        // An opaque red pixel and a transparent green one: red.
        let image = RGBAImage(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 255, 0, 0])!
        XCTAssertEqual(image.averageColor, RGBColor(red: 255, green: 0, blue: 0))
        let half = RGBAImage(width: 2, height: 1, pixels: [200, 0, 0, 255, 0, 100, 0, 255])!
        XCTAssertEqual(Placeholders(of: half).averageColorHex, "#643200")
        XCTAssertEqual(RGBAImage(width: 1, height: 1, pixels: [9, 9, 9, 0])!.averageColor, .black)
    }

    func testEntryMetadataKeepsPlaceholdersAndDropsMalformedOnes() throws {
        var entry = CacheEntry(key: String(repeating: "a", count: 64), identity: "i", source: "s", variant: "original",
                               format: "jpeg", width: 1, height: 1, bytes: 1, checksum: "x", created: 1, expires: nil)
        XCTAssertFalse(String(decoding: entry.encoded(), as: UTF8.self).contains("blurhash"), "no field when there are none")
        entry.placeholders = Placeholders(of: Self.pattern(32, 24, alpha: false))
        let decoded = try XCTUnwrap(CacheEntry.decode(entry.encoded()))
        XCTAssertEqual(decoded.placeholders, entry.placeholders)
        // A hostile value is not handed out: the entry reads as having none.
        let planted = String(decoding: entry.encoded(), as: UTF8.self).replacingOccurrences(of: "blurhash\tL", with: "blurhash\t<")
        XCTAssertNil(CacheEntry.decode(Array(planted.utf8))?.placeholders)
        XCTAssertNotNil(CacheEntry.decode(Array(planted.utf8)))
    }

    func testBase64EncodeIsRFC4648WithPadding() {
        XCTAssertEqual(Base64.encode(Array("f".utf8)), "Zg==")
        XCTAssertEqual(Base64.encode(Array("fo".utf8)), "Zm8=")
        XCTAssertEqual(Base64.encode(Array("foobar".utf8)), "Zm9vYmFy")
        XCTAssertEqual(Base64.encode([0xfb, 0xff]), "+/8=")
    }

    func testAutoCandidatesAreOneSpellingInTheKey() {
        var a = Processing(width: 10, format: .auto)
        a.accept = [.webp, .avif, .webp]
        var b = Processing(width: 10, format: .auto)
        b.accept = [.avif, .webp]
        XCTAssertEqual(a.normalized, b.normalized)
        XCTAssertEqual(a.normalized.identifier, "w10-inside-auto-accept.avif.webp")
        var c = Processing(width: 10, format: .jpeg)
        c.accept = [.webp]
        XCTAssertNil(c.normalized.accept, "--accept only counts with -f auto")
        XCTAssertNil(Processing(width: 10, format: .auto).spelledAsSource, "auto is never the source's own spelling")
    }
}
