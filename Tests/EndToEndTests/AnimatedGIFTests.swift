import Foundation
import XCTest

/// An animated GIF to GIF (issue 44): its frames resized by the own Lanczos3 (vips_animated.c), the
/// file as vipsthumbnail makes it with gifsave at the same effort: every frame, its delay and the
/// loop count kept, each frame as close to vipsthumbnail's as two palettes allow, the size within 10%.
final class AnimatedGIFTests: E2ETestCase {
    /// SRC: 8 frames of 400x300, smooth tones panned (opaque) or with a transparent hole (alpha);
    /// delays 40-110 ms, loop 2.
    func makeGIF(_ src: URL, transparent: Bool) throws {
        try Fidelity.python("""
            import numpy as np
            from PIL import Image
            rng = np.random.default_rng(7)
            small = rng.random((16, 20, 3))
            big = np.asarray(Image.fromarray((small * 255).astype(np.uint8)).resize((480, 340), Image.BICUBIC))
            frames = []
            for i in range(8):
                rgb = Image.fromarray(np.ascontiguousarray(big[i * 5:i * 5 + 300, i * 10:i * 10 + 400]))
                p = rgb.quantize(255)
                if \(transparent ? "True" : "False"):
                    a = np.array(p); a[100:200, 150 + i * 10:250 + i * 10] = 255; p = Image.fromarray(a, 'P'); p.putpalette(rgb.quantize(255).getpalette())
                frames.append(p)
            extra = {'transparency': 255, 'disposal': 2} if \(transparent ? "True" : "False") else {}
            frames[0].save('\(src.path)', save_all=True, append_images=frames[1:], duration=[40 + 10 * i for i in range(8)], loop=2, **extra)
            """)
    }

    func testFramesDelaysLoopSizeAndPixelsAsVipsthumbnails() throws {
        for transparent in [false, true] {
            let name = transparent ? "hole" : "pan"
            let src = file("\(name).gif"), out = file("\(name)-out.gif"), ref = file("\(name)-ref.gif")
            try makeGIF(src, transparent: transparent)
            assertExit(try get([src.path, "-s", "160x160", "-o", out.path]), 0)
            try Fidelity.vipsthumbnail([src.path + "[n=-1]", "-s", "160x160", "-o", ref.path + "[effort=4,strip]"])
            XCTAssertEqual(try Fidelity.vipsheader("delay", out), "40 50 60 70 80 90 100 110", name)
            // PIL's loop=2 reads back as 3 in libvips 8.14: the same field as vipsthumbnail's.
            XCTAssertEqual(try Fidelity.vipsheader("loop", out), try Fidelity.vipsheader("loop", ref), name)
            let report = file("\(name).json")
            try Fidelity.python("""
                import json, numpy as np
                from PIL import Image, ImageSequence
                def frames(p):
                    return [np.asarray(f.convert('RGBA'), np.float64) for f in ImageSequence.Iterator(Image.open(p))]
                o, r = frames('\(out.path)'), frames('\(ref.path)')
                def psnr(a, b):
                    m = ((a - b) ** 2).mean()
                    return 99.0 if m == 0 else float(10 * np.log10(255 ** 2 / m))
                json.dump({'size': list(Image.open('\(out.path)').size), 'frames': len(o), 'ref_frames': len(r),
                           'psnr': min(psnr(a, b) for a, b in zip(o, r)),
                           'hole_alpha': float(o[3][60:70, 100:110, 3].max())}, open('\(report.path)', 'w'))
                """)
            let m = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
            XCTAssertEqual(m["size"] as? [Int], [160, 120], name)
            XCTAssertEqual(m["frames"] as? Int, 8, name)
            XCTAssertEqual(m["ref_frames"] as? Int, 8, name)
            let psnr = try XCTUnwrap(m["psnr"] as? Double)
            XCTAssertGreaterThanOrEqual(psnr, 30, "\(name): the worst frame's PSNR against vipsthumbnail's")
            if transparent { XCTAssertEqual(m["hole_alpha"] as? Double, 0, "\(name): the hole stays transparent") }
            let size = Double(try Data(contentsOf: out).count), refSize = Double(try Data(contentsOf: ref).count)
            XCTAssertLessThanOrEqual(abs(size - refSize) / refSize, 0.1, "\(name): \(size) bytes against vipsthumbnail's \(refSize)")
        }
    }
}
