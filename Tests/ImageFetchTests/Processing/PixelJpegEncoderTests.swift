import Foundation
import XCTest
@testable import ImageFetch

/// Other decoders' pixels to JPEG without libvips (`ifj_encode`, jpeg_encode.c): the file libvips'
/// jpegsave writes from the same pixels, alpha flattened onto the background as libvips does.
final class PixelJpegEncoderTests: XCTestCase {
    /// width x height pixels of `channels` bytes: gradients, and an alpha of every value.
    func pixels(_ width: Int, _ height: Int, channels: Int) -> [UInt8] {
        var out = [UInt8]()
        for y in 0..<height {
            for x in 0..<width {
                let colour = [UInt8((x * 255) / width), UInt8((y * 255) / height), UInt8((x * 7 + y * 13) & 255)]
                out += channels < 3 ? [colour[0]] : colour
                if channels == 2 || channels == 4 { out.append(UInt8((x * 31 + y * 17) & 255)) }
            }
        }
        return out
    }

    /// libvips' own JPEG of the pixels: a PNG of them (lossless) made into a JPEG without a resize.
    func vipsJPEG(_ px: [UInt8], _ width: Int, _ height: Int, channels: Int, quality: Int?, background: RGBColor) throws -> [UInt8] {
        let png = try XCTUnwrap(px.withUnsafeBytes {
            PixelEncoder.encode($0.baseAddress!, width: width, height: height, channels: channels, as: .png,
                                quality: nil, pixelsPerMetre: 2835)
        })
        var p = Processing(format: .jpeg, quality: quality)
        p.background = background
        return try VipsBridge.thumbnail(png, for: p, saving: .jpeg, allPages: false).bytes
    }

    func testTheFileIsJpegsavesForTheSamePixels() throws {
        let (w, h) = (173, 91)
        for channels in [1, 2, 3, 4] {
            for quality in [nil, 50, 90] as [Int?] {
                for background in [RGBColor.white, RGBColor(red: 200, green: 30, blue: 90)] where channels == 2 || channels == 4 || background == .white {
                    let px = pixels(w, h, channels: channels)
                    let mine = try XCTUnwrap(px.withUnsafeBytes {
                        PixelEncoder.encode($0.baseAddress!, width: w, height: h, channels: channels, as: .jpeg,
                                            quality: quality, pixelsPerMetre: 2835, background: background)
                    })
                    let theirs = try vipsJPEG(px, w, h, channels: channels, quality: quality, background: background)
                    XCTAssertEqual(mine, theirs, "\(channels) channels, Q \(String(describing: quality)), \(background)")
                }
            }
        }
    }
}
