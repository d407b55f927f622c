import XCTest
@testable import ImageFetch

/// `JpegMetadataCheck` over hostile blocks: each damage named, intact blocks passed, and no input
/// that crashes it or loops (issue 41, point 10).
final class JpegMetadataCheckTests: XCTestCase {
    /// SOI, one APP1 with `body`, a stub SOS.
    func jpeg(_ body: [UInt8]) -> [UInt8] {
        let length = body.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body + [0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9]
    }

    /// A little-endian TIFF: IFD0 at 8 with `entries` (tag, type, count, value) and `next`.
    func tiff(_ entries: [(Int, Int, Int, Int)], next: Int = 0, tail: [UInt8] = []) -> [UInt8] {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        var t: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le(8, 4) + le(entries.count, 2)
        for (tag, type, count, value) in entries { t += le(tag, 2) + le(type, 2) + le(count, 4) + le(value, 4) }
        return t + le(next, 4) + tail
    }

    func exif(_ t: [UInt8]) -> [UInt8] { Array("Exif\0\0".utf8) + t }

    func testIntactBlocksPass() {
        // Orientation inline; a 10-byte ASCII value at the end of the block.
        let value = 8 + 2 + 2 * 12 + 4
        let t = tiff([(0x0112, 3, 1, 1), (0x010F, 2, 10, value)], tail: Array("A camera\0\0".utf8))
        XCTAssertEqual(JpegMetadataCheck.damage(in: jpeg(exif(t))), [])
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><rdf:RDF></rdf:RDF></x:xmpmeta>".utf8)
        XCTAssertEqual(JpegMetadataCheck.damage(in: jpeg(xmp)), [])
        XCTAssertEqual(JpegMetadataCheck.damage(in: Array("not a jpeg".utf8)), [])
    }

    func testEachDamageIsNamed() {
        let cases: [([UInt8], String)] = [
            (exif([0x49, 0x49]), "shorter than 8"),
            (exif(Array("XX*\0\u{8}\0\0\0".utf8)), "no TIFF byte order"),
            (exif(tiff([(0x0112, 3, 1, 1)]).enumerated().map { $0.offset == 2 ? 0 : $0.element }), "does not say 42"),
            (exif([0x49, 0x49, 0x2A, 0x00, 0xF0, 0xFF, 0xFF, 0x7F]), "IFD0 at offset 2147483632 is past the end"),
            (exif(tiff([(0x0112, 3, 1, 1)]).dropLast(10)), "has 1 entries, past the end"),
            (exif(tiff([(0x010F, 2, 100, 30)])), "tag 0x10f of IFD0 has 100 bytes at offset 30"),
            (exif(tiff([(0x8769, 4, 1, 4000)])), "the IFD of tag 0x8769 at offset 4000"),
            (exif(tiff([(0x0112, 3, 1, 1)], next: 9000)), "the IFD after IFD0 at offset 9000"),
        ]
        for (body, why) in cases {
            let found = JpegMetadataCheck.damage(in: jpeg(body))
            XCTAssertEqual(found.map(\.block), ["exif"], why)
            XCTAssertTrue(found.first?.why.contains(why) == true, "\(found) should say \(why)")
        }
        let xmpCases: [([UInt8], String)] = [
            (Array("http://ns.adobe.com/xap/1.0/\0".utf8) + [0xC3, 0x28], "not UTF-8"),
            (Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>".utf8), "no rdf:RDF"),
            (Array("http://ns.adobe.com/xap/1.0/\0<rdf:RDF><rdf:Desc".utf8), "cut short"),
        ]
        for (body, why) in xmpCases {
            let found = JpegMetadataCheck.damage(in: jpeg(body))
            XCTAssertEqual(found.map(\.block), ["xmp"], why)
            XCTAssertTrue(found.first?.why.contains(why) == true, "\(found) should say \(why)")
        }
    }

    func testLoopsAndHostileBytesEnd() {
        // IFD0 whose next IFD is itself, and an Exif sub-IFD pointing back at IFD0: read once each.
        XCTAssertEqual(JpegMetadataCheck.damage(in: jpeg(exif(tiff([(0x8769, 4, 1, 8)], next: 8)))), [])
        // Every truncation and many byte flips of a valid block: an answer, never a trap.
        let base = jpeg(exif(tiff([(0x0112, 3, 1, 1), (0x8769, 4, 1, 8), (0x010F, 2, 10, 34)], tail: Array("A camera\0\0".utf8))))
        for n in 0...base.count { _ = JpegMetadataCheck.damage(in: Array(base.prefix(n))) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var bytes = base
            for _ in 0..<3 { bytes[Int.random(in: 6..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            _ = JpegMetadataCheck.damage(in: bytes)
        }
    }
}
