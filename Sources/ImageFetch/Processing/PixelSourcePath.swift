import CDecoders

/// PNG, WebP and GIF-still sources made into thumbnails without libvips (issue 44): decoded by
/// libpng, libwebp (scaled on decode as libvips 8.14's thumbnail loads it) or giflib
/// (`CDecoders`), resized by the JPEG path's Lanczos3 and encoded by `PixelEncoder` (JPEG, PNG,
/// WebP; AVIF by libvips from the pixels), on the same route as a JPEG source
/// (`ProcessingRoute.jpegThumbnail`, `-f jpeg` without a resize, and `-f auto`'s `autoFormat`).
/// Everything the decoders decline (ICC
/// profiles, 16 bits, EXIF rotation, animation, damage of any kind...) and every output they cannot
/// write goes to libvips exactly as before, which gives the verdict: an image refused before is
/// refused the same way.
enum PixelSourcePath {
    /// 1: libwebp decodes on the caller's thread alone (a batch, whose images already keep every
    /// core busy); more: on a second thread too (the default, libvips' setting). Process-wide.
    static func setThreadsPerImage(_ n: Int) { ifd_webp_set_threads(n > 1 ? 1 : 0) }

    /// The thumbnail, or nil when this path declines (libvips then processes the bytes).
    static func thumbnail(_ bytes: [UInt8], processing: Processing, route: ProcessingRoute,
                          maxPixels: Int64) -> ProcessedImage? {
        let routed: ImageFormat
        if let output = route.jpegThumbnailOutput {
            routed = output
        } else if route == .handOutJPEG || route == .autoFormat, !processing.needsLibvips {
            routed = route == .autoFormat ? .auto : .jpeg
        } else {
            return nil
        }
        let source = bytes.withUnsafeBytes { ifd_sniff($0.baseAddress, $0.count) }
        guard let sourceFormat = format(of: source) else { return nil }
        // `-f original` keeps the source's format (libvips' choice for these three); GIF is written by libvips only.
        let output = processing.format == .original ? sourceFormat : routed
        guard output == .auto || PixelEncoder.encodesDecoded(output) else { return nil }
        // A source already in the format asked for, without a resize or a quality, is handed out as it is (libvips' check).
        if !processing.resizes && output == sourceFormat && processing.quality == nil { return nil }
        var opts = ifd_opts(width: Int32(clamping: processing.width ?? VipsBridge.unconstrained),
                            height: Int32(clamping: processing.height ?? VipsBridge.unconstrained),
                            crop: processing.coversBox ? 1 : 0, max_pixels: Double(maxPixels))
        var result = ifd_result()
        let status = bytes.withUnsafeBytes { ifd_thumbnail($0.baseAddress, $0.count, &opts, &result) }
        guard status == Int32(IFD_OK), let pixels = result.pixels else { return nil }
        defer { ifd_free(pixels) }
        // An animated GIF to a format that holds an animation is libvips' (every frame; -f auto takes the first).
        if result.frames > 1 && output.isAnimated { return nil }
        let image = Decoded(pixels: pixels, width: Int(result.width), height: Int(result.height),
                            channels: Int(result.channels), pixelsPerMetre: Int(result.pixels_per_metre))
        let made = output == .auto ? smallest(image, processing: processing) : encode(image, as: output, processing: processing).map { ($0, output) }
        guard let (encoded, written) = made else { return nil }
        return ProcessedImage(bytes: encoded, width: image.width, height: image.height, format: written.rawValue,
                              sourceWidth: Int(result.source_width), sourceHeight: Int(result.source_height),
                              sourceFormat: sourceFormat.rawValue)
    }

    /// A decoder's thumbnail pixels (owned by the caller).
    struct Decoded {
        var pixels: UnsafeRawPointer
        var width, height, channels, pixelsPerMetre: Int
    }

    static func encode(_ image: Decoded, as format: ImageFormat, processing: Processing, optimizeCoding: Bool = false) -> [UInt8]? {
        PixelEncoder.encode(image.pixels, width: image.width, height: image.height, channels: image.channels, as: format,
                            quality: processing.quality, pixelsPerMetre: image.pixelsPerMetre,
                            background: processing.background, optimizeCoding: optimizeCoding)
    }

    /// `-f auto` as libvips makes it (`vips_outputs.c`'s ifv_smallest): an alpha band that is 255
    /// everywhere is dropped; a picture with transparency tries only the candidates that keep alpha,
    /// one without only those not kept for transparency; JPEG with optimised Huffman tables; the
    /// smallest file wins, the first of equals. nil when no candidate fits (libvips then says why).
    static func smallest(_ decoded: Decoded, processing: Processing) -> ([UInt8], ImageFormat)? {
        var image = decoded
        let count = image.width * image.height
        let base = decoded.pixels.assumingMemoryBound(to: UInt8.self)
        let hasAlpha = image.channels == 2 || image.channels == 4
        let transparent = hasAlpha && (0..<count).contains { base[$0 * image.channels + image.channels - 1] < 255 }
        var opaque: [UInt8] = []
        if hasAlpha && !transparent {
            let colours = image.channels - 1
            opaque.reserveCapacity(count * colours)
            for i in 0..<count { for c in 0..<colours { opaque.append(base[i * image.channels + c]) } }
            image.channels = colours
        }
        return opaque.withUnsafeBytes { stripped in
            if !opaque.isEmpty, let start = stripped.baseAddress { image.pixels = start }   // an empty array's address is no pixels
            var best: ([UInt8], ImageFormat)?
            for candidate in AutoFormat.candidates(processing.accept) {
                if transparent && !candidate.format.hasAlpha { continue }
                if !transparent && candidate.onlyWithTransparency { continue }
                guard let bytes = encode(image, as: candidate.format, processing: processing,
                                         optimizeCoding: candidate.format == .jpeg) else { return nil }
                if best == nil || bytes.count < best!.0.count { best = (bytes, candidate.format) }
            }
            return best
        }
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

    /// A source whose name says PNG, WebP or GIF (`gifOnly`: GIF): on a route this path takes,
    /// libvips need not be loaded ahead.
    static func mayTake(_ source: Source, gifOnly: Bool = false) -> Bool {
        let text: String
        switch source {
        case .http(let url): text = String(url.prefix { $0 != "?" && $0 != "#" }).lowercased()
        case .file(let path): text = path.lowercased()
        case .data(let payload):
            return (gifOnly ? ["image/gif"] : ["image/png", "image/webp", "image/gif"]).contains(payload.mediaType)
        }
        return (!gifOnly && (text.hasSuffix(".png") || text.hasSuffix(".webp"))) || text.hasSuffix(".gif")
    }
}
