import CJpeg
import CVips

/// The small sRGB RGBA image placeholders are computed from, decoded from encoded bytes (a cache
/// hit, or an original handed out as it is): libjpeg alone for a plain JPEG (no libvips load), else
/// a libvips shrink-on-load thumbnail. A thumbnail being made gives its pixels in the same pass
/// instead (`VipsBridge.thumbnail`).
enum PlaceholderPixels {
    static func decode(_ bytes: [UInt8], maxPixels: Int64) -> RGBAImage? {
        if let jpeg = jpeg(bytes, maxPixels: maxPixels) { return jpeg }
        guard (try? VipsBridge.load()) != nil else { return nil }
        var out: UnsafeMutableRawPointer? = nil
        var w: Int32 = 0, h: Int32 = 0
        var err = [CChar](repeating: 0, count: 256)
        let side = Int32(Placeholders.side)
        let rc = bytes.withUnsafeBytes { buf in
            err.withUnsafeMutableBufferPointer { e in
                ifv_rgba_pixels(buf.baseAddress, buf.count, side, &out, &w, &h, e.baseAddress, e.count)
            }
        }
        guard rc == 0, let out else { return nil }
        defer { ifv_free(out) }
        return image(out, width: Int(w), height: Int(h), channels: 4)
    }

    /// libjpeg's thumbnail pixels of a plain JPEG (nil when it declines: libvips then decodes it).
    static func jpeg(_ bytes: [UInt8], maxPixels: Int64) -> RGBAImage? {
        var opts = JpegFastPath.options(width: Placeholders.side, height: Placeholders.side, cover: false, quality: nil, maxPixels: maxPixels)
        opts.pixels = 1
        var result = ifj_result()
        let status = bytes.withUnsafeBytes { buf in ifj_thumbnail(buf.baseAddress, buf.count, &opts, &result) }
        guard status == Int32(IFJ_OK), let data = result.data else { return nil }
        defer { ifj_free(data) }
        let count = Int(result.width) * Int(result.height)
        guard count > 0, result.length == count || result.length == count * 3 else { return nil }
        return image(data, width: Int(result.width), height: Int(result.height), channels: result.length / count)
    }

    /// RGBA from 1 (grey), 3 (RGB) or 4 (RGBA) bytes a pixel.
    static func image(_ data: UnsafeMutableRawPointer, width: Int, height: Int, channels: Int) -> RGBAImage? {
        let n = width * height
        guard n > 0 else { return nil }
        let src = UnsafeRawBufferPointer(start: data, count: n * channels)
        if channels == 4 { return RGBAImage(width: width, height: height, pixels: Array(src)) }
        var out = [UInt8](repeating: 255, count: n * 4)
        for i in 0..<n {
            for c in 0..<3 { out[i * 4 + c] = src[i * channels + (channels == 3 ? c : 0)] }
        }
        return RGBAImage(width: width, height: height, pixels: out)
    }
}
