import CDecoders

/// PNG, WebP and GIF-still sources made into thumbnails without libvips (issue 44): decoded by
/// libpng, libwebp (scaled on decode as libvips 8.14's thumbnail loads it) or giflib
/// (`CDecoders`), resized by the JPEG path's Lanczos3 and encoded by `PixelEncoder` (PNG, WebP; AVIF
/// by libvips from the pixels), on the same route as a JPEG source (`ProcessingRoute.jpegThumbnail`).
/// Everything the decoders decline (ICC
/// profiles, 16 bits, EXIF rotation, animation, damage of any kind...) and every output they cannot
/// write goes to libvips exactly as before, which gives the verdict: an image refused before is
/// refused the same way.
enum PixelSourcePath {
    /// The thumbnail, or nil when this path declines (libvips then processes the bytes).
    static func thumbnail(_ bytes: [UInt8], processing: Processing, route: ProcessingRoute,
                          maxPixels: Int64) -> ProcessedImage? {
        guard let routed = route.jpegThumbnailOutput else { return nil }
        let source = bytes.withUnsafeBytes { ifd_sniff($0.baseAddress, $0.count) }
        guard let sourceFormat = format(of: source) else { return nil }
        // `-f original` keeps the source's format (libvips' choice for these three); GIF is written by libvips only.
        let output = processing.format == .original ? sourceFormat : routed
        guard PixelEncoder.encodes(output) else { return nil }
        // A source already in the format asked for, without a resize or a quality, is handed out as it is (libvips' check).
        if !processing.resizes && output == sourceFormat && processing.quality == nil { return nil }
        var opts = ifd_opts(width: Int32(clamping: processing.width ?? VipsBridge.unconstrained),
                            height: Int32(clamping: processing.height ?? VipsBridge.unconstrained),
                            crop: processing.coversBox ? 1 : 0, max_pixels: Double(maxPixels))
        var result = ifd_result()
        let status = bytes.withUnsafeBytes { ifd_thumbnail($0.baseAddress, $0.count, &opts, &result) }
        guard status == Int32(IFD_OK), let pixels = result.pixels else { return nil }
        defer { ifd_free(pixels) }
        let sourceWidth = Int(result.source_width), sourceHeight = Int(result.source_height)
        // An animated GIF to a format that holds an animation is libvips' (every frame).
        if result.frames > 1 && output.isAnimated { return nil }
        let width = Int(result.width), height = Int(result.height)
        guard let encoded = PixelEncoder.encode(pixels, width: width, height: height, channels: Int(result.channels),
                                                as: output, quality: processing.quality,
                                                pixelsPerMetre: Int(result.pixels_per_metre)) else { return nil }
        return ProcessedImage(bytes: encoded, width: width, height: height, format: output.rawValue,
                              sourceWidth: sourceWidth, sourceHeight: sourceHeight, sourceFormat: sourceFormat.rawValue)
    }

    /// The format of a `ifd_sniff` answer (nil for none of the three).
    static func format(of sniffed: Int32) -> ImageFormat? {
        switch sniffed {
        case Int32(IFD_PNG): .png
        case Int32(IFD_WEBP): .webp
        case Int32(IFD_GIF): .gif
        default: nil
        }
    }

    /// A source whose name says PNG, WebP or GIF: on a route this path takes, libvips need not be
    /// loaded ahead.
    static func mayTake(_ source: Source) -> Bool {
        let text: String
        switch source {
        case .http(let url): text = String(url.prefix { $0 != "?" && $0 != "#" }).lowercased()
        case .file(let path): text = path.lowercased()
        case .data(let payload): return ["image/png", "image/webp", "image/gif"].contains(payload.mediaType)
        }
        return text.hasSuffix(".png") || text.hasSuffix(".webp") || text.hasSuffix(".gif")
    }
}
