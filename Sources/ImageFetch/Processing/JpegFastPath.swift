import CJpeg

/// JPEG to JPEG thumbnails with libjpeg alone (see `jpeg_fast.c`): less time and memory than
/// loading libvips, which matters for one `get` per process. Returns nil whenever the input is
/// anything but a plain JPEG it handles exactly (ICC profile, CMYK, EXIF rotation, a libjpeg
/// warning such as truncation...): libvips then processes it and gives the verdict.
enum JpegFastPath {
    struct Output {
        var image: EncodedImage
        var sourceWidth: Int
        var sourceHeight: Int
        /// The thumbnail's pixels fitted inside `Placeholders.side`, when asked for.
        var small: RGBAImage? = nil

        var processed: ProcessedImage {
            var p = ProcessedImage(bytes: image.bytes, width: image.width, height: image.height, format: "jpeg",
                                   sourceWidth: sourceWidth, sourceHeight: sourceHeight, sourceFormat: "jpeg")
            p.placeholders = small.map(Placeholders.init(of:))
            return p
        }
    }

    static func options(width: Int?, height: Int?, cover: Bool, quality: Int?, maxPixels: Int64) -> ifj_opts {
        ifj_opts(width: Int32(clamping: width ?? VipsBridge.unconstrained),
                 height: Int32(clamping: height ?? VipsBridge.unconstrained),
                 crop: cover ? 1 : 0, quality: Int32(quality ?? 0), max_pixels: Double(maxPixels), pixels: 0, small_side: 0)
    }

    /// The thumbnail, or nil when this path declines (libvips then processes the bytes). Throws
    /// `.invalidImage` when libjpeg reported corrupt or truncated data: never a grey image.
    static func thumbnail(_ bytes: [UInt8], width: Int?, height: Int?, cover: Bool, quality: Int?, maxPixels: Int64,
                          placeholders: Bool = false) throws(FetchError) -> Output? {
        var opts = options(width: width, height: height, cover: cover, quality: quality, maxPixels: maxPixels)
        if placeholders { opts.small_side = Int32(Placeholders.side) }
        var result = ifj_result()
        let status = bytes.withUnsafeBytes { buf in ifj_thumbnail(buf.baseAddress, buf.count, &opts, &result) }
        if status == Int32(IFJ_CORRUPT) {
            // The full-scale check names libjpeg's complaint (the same entropy data, so the same one).
            if case .corrupt(let message) = check(bytes, maxPixels: Int64.max) { throw corrupt(message) }
            throw corrupt("Corrupt JPEG data")
        }
        guard status == Int32(IFJ_OK) else { return nil }
        return output(result)
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

    /// Takes the encoded bytes out of a successful `ifj_result` (and frees its buffer).
    static func output(_ result: ifj_result) -> Output? {
        defer { if let small = result.small { ifj_free(small) } }
        guard let data = result.data else { return nil }
        defer { ifj_free(data) }
        let encoded = Array(UnsafeRawBufferPointer(start: data, count: result.length))
        var out = Output(image: EncodedImage(bytes: encoded, width: Int(result.width), height: Int(result.height)),
                         sourceWidth: Int(result.source_width), sourceHeight: Int(result.source_height))
        if let small = result.small {
            out.small = PlaceholderPixels.image(small, width: Int(result.small_width), height: Int(result.small_height), channels: 4)
        }
        return out
    }
}
