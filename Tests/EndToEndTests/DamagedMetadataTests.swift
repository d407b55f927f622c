import Foundation
import XCTest

/// A JPEG whose EXIF or XMP block is damaged but whose picture is intact gives its picture, without
/// that metadata, with a warning (`-v`, the record's `warnings`) and the record's
/// `metadata_dropped` (issue 41, point 10): on libjpeg's route and libvips', and on a later hit.
final class DamagedMetadataTests: E2ETestCase {
    /// A 120x80 JPEG (PIL) with `segment` (an APP1 body) spliced in after SOI.
    func jpeg(_ name: String, app1 segment: [UInt8]) throws -> URL {
        let plain = file("plain-\(name)")
        try Fidelity.python("""
            from PIL import Image
            im = Image.new('RGB', (120, 80), (200, 30, 40))
            im.paste((20, 180, 60), (0, 0, 60, 80))
            im.save('\(plain.path)', quality=90)
            """)
        let bytes = [UInt8](try Data(contentsOf: plain))
        let length = segment.count + 2
        let out = file(name)
        try Data(Array(bytes[..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + segment + Array(bytes[2...])).write(to: out)
        return out
    }

    /// `Exif\0\0`, a big-endian TIFF header, and IFD0 declaring 32 entries in a block of 3 (as Pillow's
    /// hopper_bad_exif.jpg's EXIF block: an IFD running past the block's end).
    static let damagedEXIF: [UInt8] = Array("Exif\0\0MM".utf8) + [0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x20]
        + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]   // Orientation 1
        + [0x82, 0x98, 0x00, 0x02, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x7F, 0xF0]   // Copyright, 64 bytes far past the end
        + [0x01, 0x0F, 0x00, 0x02]

    func testADamagedEXIFBlockIsDroppedAndThePictureKept() throws {
        let source = try jpeg("bad-exif.jpg", app1: Self.damagedEXIF)
        let routes: [(args: [String], format: ImageInfo.Format, out: String)] = [
            (["-s", "60"], .jpeg, "t.jpg"),                                     // libjpeg's thumbnail, or libvips'
            (["-s", "60"], .png, "t.png"),                                      // libvips
            (["-s", "60", "--keep-metadata", "copyright"], .webp, "t.webp"),    // asked to keep EXIF: not this one
        ]
        for route in routes {
            let r = try get([source.path, "--json", "-v", "-o", file(route.out).path] + route.args)
            assertExit(r, 0)
            assertImageFile(file(route.out), route.format, width: 60, height: 40, route.out)
            let record = singleRecord(r)
            XCTAssertEqual(record["metadata_dropped"] as? [String], ["exif"], "\(route.out): the record says so:\n\(r)")
            let warnings = record["warnings"] as? [String] ?? []
            XCTAssertEqual(warnings.count, 1, "\(route.out):\n\(r)")
            XCTAssertTrue(warnings.first?.contains("EXIF metadata is damaged (IFD0 at offset 8 has 32 entries") == true, "\(route.out):\n\(r)")
            XCTAssertTrue(r.stderr.contains("warning: \(source.path): its EXIF metadata is damaged"), "-v says it:\n\(r)")
            let out = try Data(contentsOf: file(route.out))
            XCTAssertNil(out.range(of: Data("Exif".utf8)), "\(route.out): no EXIF written")
        }
        // A later hit's record says it too (kept in the entry); its warning was the miss's.
        let hit = try get([source.path, "--json", "-s", "60", "-o", file("again.jpg").path])
        assertExit(hit, 0)
        XCTAssertEqual(singleRecord(hit)["cache"] as? String, "hit")
        XCTAssertEqual(singleRecord(hit)["metadata_dropped"] as? [String], ["exif"], "\(hit)")
        // The original handed out as it is keeps its bytes, block and all: nothing dropped.
        let original = try get([source.path, "--json", "-o", file("as-is.jpg").path])
        assertExit(original, 0)
        XCTAssertEqual(try Data(contentsOf: file("as-is.jpg")), try Data(contentsOf: source))
        XCTAssertNil(singleRecord(original)["metadata_dropped"], "\(original)")
    }

    func testADamagedXMPPacketIsDroppedAndThePictureKept() throws {
        // Cut short: no </rdf:RDF>.
        let packet = Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><rdf:Descr".utf8)
        let source = try jpeg("bad-xmp.jpg", app1: packet)
        let r = try get([source.path, "--json", "-s", "60", "-o", file("x.webp").path])
        assertExit(r, 0)
        assertImageFile(file("x.webp"), .webp, width: 60, height: 40)
        XCTAssertEqual(singleRecord(r)["metadata_dropped"] as? [String], ["xmp"], "\(r)")
        XCTAssertTrue(r.stderr.contains("its XMP metadata is damaged (its XMP packet is cut short"), "\(r)")
    }

    func testIntactMetadataIsNotMarked() throws {
        let source = file("exif.jpg")
        try Fidelity.python("""
            from PIL import Image
            im = Image.new('RGB', (120, 80), (200, 30, 40))
            exif = Image.Exif()
            exif[0x0112] = 1
            exif[0x8298] = 'Someone, 2026'
            exif[0x0110] = 'A camera model long enough to be stored past the entry'
            im.save('\(source.path)', quality=90, exif=exif.tobytes())
            """)
        for (args, out) in [(["-s", "60"], "i.jpg"), (["-s", "60", "--keep-metadata", "copyright"], "i.webp")] {
            let r = try get([source.path, "--json", "-o", file(out).path] + args)
            assertExit(r, 0)
            XCTAssertNil(singleRecord(r)["metadata_dropped"], "\(out):\n\(r)")
            XCTAssertNil(singleRecord(r)["warnings"], "\(out):\n\(r)")
        }
        // What --keep-metadata keeps of an intact block is still there.
        XCTAssertEqual(try Fidelity.exiftool(file("i.webp"))["EXIF:Copyright"] as? String, "Someone, 2026")
    }
}
