import XCTest
@testable import ImageFetch

final class WebPMetadataTests: XCTestCase {
    private func chunk(_ fourcc: String, _ body: [UInt8]) -> [UInt8] {
        let n = body.count
        return Array(fourcc.utf8) + [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), 0, 0] + body + (n % 2 == 1 ? [0] : [])
    }

    private func riff(_ chunks: [UInt8]) -> [UInt8] {
        let n = chunks.count + 4
        return Array("RIFF".utf8) + [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), 0, 0] + Array("WEBP".utf8) + chunks
    }

    func testRemovesExifAndXmpAndTheirFlags() {
        let vp8x = chunk("VP8X", [0x08 | 0x04 | 0x10] + [UInt8](repeating: 0, count: 9))
        let image = chunk("VP8L", [1, 2, 3])
        let input = riff(vp8x + image + chunk("EXIF", Array("GPS secret".utf8)) + chunk("XMP ", Array("<x/>".utf8)))
        let out = WebPMetadata.removingMetadata(input)
        var expectedVP8X = vp8x
        expectedVP8X[8] = 0x10
        XCTAssertEqual(out, riff(expectedVP8X + image))
    }

    func testLeavesWhatItCannotParse() {
        let truncated = Array(riff(chunk("VP8L", [1, 2, 3, 4])).dropLast(3))
        XCTAssertEqual(WebPMetadata.removingMetadata(truncated), truncated)
        XCTAssertEqual(WebPMetadata.removingMetadata([1, 2, 3]), [1, 2, 3])
    }
}
