import CJpeg

/// JPEG thumbnails with libjpeg alone (see `jpeg_fast.c`): less time and memory than loading
/// libvips, which matters for one `get` per process. A JPEG is encoded by libjpeg; for WebP or PNG
/// the resized pixels go to `PixelEncoder` (libwebp, libpng). Returns nil whenever the input is
/// anything but a plain JPEG it handles exactly (ICC profile, CMYK, EXIF rotation, a libjpeg
/// warning such as truncation...): libvips then processes it and gives the verdict.
enum JpegFastPath {
    struct Output {
        var image: EncodedImage
        var sourceWidth: Int
        var sourceHeight: Int
        /// The thumbnail's pixels fitted inside `Placeholders.side`, when asked for.
        var small: RGBAImage? = nil
        /// jpeg, webp or png.
        var format: ImageFormat = .jpeg

        var processed: ProcessedImage {
            var p = ProcessedImage(bytes: image.bytes, width: image.width, height: image.height, format: format.rawValue,
                                   sourceWidth: sourceWidth, sourceHeight: sourceHeight, sourceFormat: "jpeg")
            p.placeholders = small.map(Placeholders.init(of:))
            return p
        }
    }

    /// `output`: the format written (jpeg, webp or png): other than JPEG, libjpeg gives the pixels.
    static func options(width: Int?, height: Int?, cover: Bool, quality: Int?, maxPixels: Int64, output: ImageFormat = .jpeg) -> ifj_opts {
        ifj_opts(width: Int32(clamping: width ?? VipsBridge.unconstrained),
                 height: Int32(clamping: height ?? VipsBridge.unconstrained),
                 crop: cover ? 1 : 0, quality: Int32(quality ?? 0), max_pixels: Double(maxPixels),
                 pixels: output == .jpeg ? 0 : 1, small_side: 0, square_resolution: output == .png ? 1 : 0)
    }

    /// The thumbnail in `output` (jpeg, webp or png), or nil when this path declines (libvips then
    /// processes the bytes). Throws `.invalidImage` when libjpeg reported corrupt or truncated data:
    /// never a grey image.
    static func thumbnail(_ bytes: [UInt8], width: Int?, height: Int?, cover: Bool, quality: Int?, maxPixels: Int64,
                          placeholders: Bool = false, output: ImageFormat = .jpeg) throws(FetchError) -> Output? {
        var opts = options(width: width, height: height, cover: cover, quality: quality, maxPixels: maxPixels, output: output)
        if placeholders { opts.small_side = Int32(Placeholders.side) }
        var result = ifj_result()
        let status = bytes.withUnsafeBytes { buf in ifj_thumbnail(buf.baseAddress, buf.count, &opts, &result) }
        if status == Int32(IFJ_CORRUPT) {
            // The full-scale check names libjpeg's complaint (the same entropy data, so the same one).
            if case .corrupt(let message) = check(bytes, maxPixels: Int64.max) { throw corrupt(message) }
            throw corrupt("Corrupt JPEG data")
        }
        guard status == Int32(IFJ_OK) else { return nil }
        return self.output(result, as: output, quality: quality)
    }

    /// What libjpeg's strict check (`check`) says about some bytes.
    enum Verdict: Equatable {
        /// Decoded completely without a warning (stray bytes between the markers before the
        /// first scan are none: `jpeg_fast.c`): the stored dimensions.
        case whole(width: Int, height: Int)
        /// libjpeg reported an error or warning (its first message): the image must fail.
        case corrupt(String)
        /// Not a JPEG, no libjpeg, or more than maxPixels: libvips gives the verdict.
        case undecided
    }

    /// The strict, deterministic check of a JPEG: a warning-free libjpeg decode at 1/8 scale
    /// (every coefficient is still read). Costs a fraction of a decode and no libvips load.
    static func check(_ bytes: [UInt8], maxPixels: Int64) -> Verdict {
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBytes { buf in
            message.withUnsafeMutableBufferPointer { m in
                ifj_validate(buf.baseAddress, buf.count, Double(maxPixels), &width, &height, m.baseAddress, m.count)
            }
        }
        switch status {
        case Int32(IFJ_OK): return .whole(width: Int(width), height: Int(height))
        case Int32(IFJ_CORRUPT):
            let text = String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .corrupt(text.isEmpty ? "Corrupt JPEG data" : text)
        default: return .undecided
        }
    }

    /// The stored dimensions of a JPEG that libjpeg decodes completely without a warning; nil when
    /// undecided (libvips then gives the verdict). Throws `.invalidImage` for a corrupt JPEG.
    static func validate(_ bytes: [UInt8], maxPixels: Int64) throws(FetchError) -> (width: Int, height: Int)? {
        switch check(bytes, maxPixels: maxPixels) {
        case .whole(let width, let height): return (width, height)
        case .corrupt(let message): throw corrupt(message)
        case .undecided: return nil
        }
    }

    static func corrupt(_ message: String) -> FetchError {
        .invalidImage("not a decodable image (libjpeg: \(message))")
    }

    /// Takes the encoded bytes out of a successful `ifj_result` (and frees its buffers): libjpeg's
    /// JPEG, or its pixels encoded as `format` (webp, png: nil when the encoder declines).
    static func output(_ result: ifj_result, as format: ImageFormat = .jpeg, quality: Int? = nil) -> Output? {
        defer { if let small = result.small { ifj_free(small) } }
        guard let data = result.data else { return nil }
        defer { ifj_free(data) }
        let width = Int(result.width), height = Int(result.height)
        let encoded: [UInt8]
        if format == .jpeg {
            encoded = Array(UnsafeRawBufferPointer(start: data, count: result.length))
        } else {
            let count = width * height
            guard count > 0, result.length == count || result.length == count * 3,
                  let bytes = PixelEncoder.encode(data, width: width, height: height, channels: result.length / count, as: format,
                                                  quality: quality, pixelsPerMetre: Int(result.x_ppm)) else { return nil }
            encoded = bytes
        }
        var out = Output(image: EncodedImage(bytes: encoded, width: width, height: height),
                         sourceWidth: Int(result.source_width), sourceHeight: Int(result.source_height), format: format)
        if let small = result.small {
            out.small = PlaceholderPixels.image(small, width: Int(result.small_width), height: Int(result.small_height), channels: 4)
        }
        return out
    }
}
