import CCodecs
import CJpeg
import CVips

/// Thumbnail pixels made without libvips (the JPEG path's decode and resize) encoded by libwebp or
/// libpng alone (`CCodecs`), set as libvips' webpsave and pngsave are for the same options, so the
/// file is the one libvips would write from these pixels; AVIF by libvips' heifsave from memory
/// (libvips loaded, but neither its decode nor its resize run). JPEG is written by libjpeg alone,
/// as jpegsave writes it (`jpeg_encode.c`; a JPEG source's thumbnail by `jpeg_fast.c` in the same
/// pass), GIF only by libvips.
enum PixelEncoder {
    /// The formats written here for a JPEG source's pixels (its own JPEG output is `jpeg_fast.c`'s).
    static func encodes(_ format: ImageFormat) -> Bool { format == .webp || format == .png || format == .avif }

    /// The formats written here for another decoder's pixels (`PixelSourcePath`).
    static func encodesDecoded(_ format: ImageFormat) -> Bool { encodes(format) || format == .jpeg }

    /// Whether the encoder needs libvips (loaded ahead while a download runs).
    static func needsLibvips(_ format: ImageFormat) -> Bool { format == .avif }

    /// 8-bit interleaved pixels: 1 (grey), 2 (grey, alpha), 3 (RGB) or 4 (RGBA) bytes each, rows
    /// `width * channels` bytes apart. nil when the library cannot be loaded or the encoder failed
    /// (out of memory): libvips then makes the thumbnail, and gives its own verdict.
    /// JPEG: alpha flattened onto `background` (libvips' flatten); `optimizeCoding` as -f auto's jpegsave.
    static func encode(_ pixels: UnsafeRawPointer, width: Int, height: Int, channels: Int, as format: ImageFormat,
                       quality: Int?, pixelsPerMetre: Int, background: RGBColor = .white,
                       optimizeCoding: Bool = false) -> [UInt8]? {
        var image = ifc_pixels(data: UnsafeMutablePointer(mutating: pixels.assumingMemoryBound(to: UInt8.self)),
                               width: Int32(clamping: width), height: Int32(clamping: height),
                               channels: Int32(clamping: channels), stride: width * channels)
        var out = ifc_bytes()
        let status: Int32
        switch format {
        case .webp:
            var opts = ifc_webp_opts(quality: Int32(clamping: quality ?? 0), method: -1)
            status = ifc_encode_webp(&image, &opts, &out, nil, 0)
        case .png:
            var opts = ifc_png_opts(compression: -1, pixels_per_metre: Int32(clamping: pixelsPerMetre))
            status = ifc_encode_png(&image, &opts, &out, nil, 0)
        case .jpeg:
            return jpeg(pixels, width: width, height: height, channels: channels, quality: quality,
                        background: background, optimizeCoding: optimizeCoding)
        case .avif:
            return avif(pixels, width: width, height: height, channels: channels, quality: quality)
        default:
            return nil
        }
        guard status == Int32(IFC_OK), let data = out.data else { return nil }
        defer { ifc_free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: out.length))
    }

    /// libjpeg's JPEG of the pixels, the file libvips' jpegsave writes from them (`ifj_encode`).
    static func jpeg(_ pixels: UnsafeRawPointer, width: Int, height: Int, channels: Int, quality: Int?,
                     background: RGBColor, optimizeCoding: Bool) -> [UInt8]? {
        var opts = ifj_encode_opts(quality: Int32(clamping: min(max(quality ?? 0, 0), 100)), optimize_coding: optimizeCoding ? 1 : 0,
                                   background: (background.red, background.green, background.blue))
        var out: UnsafeMutableRawPointer? = nil
        var length = 0
        let rc = ifj_encode(pixels, Int32(clamping: width), Int32(clamping: height), Int32(clamping: channels),
                            width * channels, &opts, &out, &length)
        guard rc == Int32(IFJ_OK), let out else { return nil }
        defer { ifj_free(out) }
        return Array(UnsafeRawBufferPointer(start: out, count: length))
    }

    /// libvips' heifsave (AV1) of the pixels, as a thumbnail is saved; nil when libvips or its AVIF
    /// saver is missing, or the save failed (the libvips path then says why).
    static func avif(_ pixels: UnsafeRawPointer, width: Int, height: Int, channels: Int, quality: Int?) -> [UInt8]? {
        guard channels == 1 || channels == 3, (try? VipsBridge.load()) != nil, VipsBridge.canSave(suffix: ".avif") else { return nil }
        var out: UnsafeMutableRawPointer? = nil
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let rc = message.withUnsafeMutableBufferPointer { m in
            ifv_save_pixels(pixels, Int32(clamping: width), Int32(clamping: height), Int32(channels), ".avif",
                            Int32(clamping: min(max(quality ?? 0, 0), 100)), &out, &length, m.baseAddress, m.count)
        }
        guard rc == 0, let out else { return nil }
        defer { ifv_free(out) }
        return Array(UnsafeRawBufferPointer(start: out, count: length))
    }
}
