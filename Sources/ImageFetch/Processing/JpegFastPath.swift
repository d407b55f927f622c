import CJpeg

/// JPEG to JPEG thumbnails with libjpeg alone (see `jpeg_fast.c`): ~25 ms and ~25 MB less than
/// loading libvips, which matters for one `get` per process. Returns nil whenever the input is
/// anything but a plain JPEG it handles exactly (ICC profile, CMYK, EXIF rotation, a libjpeg
/// warning such as truncation...): libvips then processes it and gives the verdict.
enum JpegFastPath {
    struct Output {
        var image: EncodedImage
        var sourceWidth: Int
        var sourceHeight: Int

        var processed: ProcessedImage {
            ProcessedImage(bytes: image.bytes, width: image.width, height: image.height, format: "jpeg",
                           sourceWidth: sourceWidth, sourceHeight: sourceHeight, sourceFormat: "jpeg")
        }
    }

    /// A thumbnail this path makes when the source is a plain JPEG: a resize to JPEG.
    static func makesThumbnail(_ processing: Processing) -> Bool {
        processing.resizes && !processing.linear && (processing.format == .jpeg || processing.format == .original)
    }

    /// The source's own bytes handed out, which this path validates when they are a JPEG.
    static func handsOutAsIs(_ processing: Processing) -> Bool {
        processing.isOriginal || (!processing.resizes && processing.format == .jpeg && processing.quality == nil)
    }

    static func options(width: Int?, height: Int?, cover: Bool, quality: Int?, maxPixels: Int64) -> ifj_opts {
        ifj_opts(width: Int32(clamping: width ?? VipsBridge.unconstrained),
                 height: Int32(clamping: height ?? VipsBridge.unconstrained),
                 crop: cover ? 1 : 0, quality: Int32(quality ?? 0), max_pixels: Double(maxPixels))
    }

    static func thumbnail(_ bytes: [UInt8], width: Int?, height: Int?, cover: Bool, quality: Int?, maxPixels: Int64) -> Output? {
        var opts = options(width: width, height: height, cover: cover, quality: quality, maxPixels: maxPixels)
        var result = ifj_result()
        let status = bytes.withUnsafeBytes { buf in ifj_thumbnail(buf.baseAddress, buf.count, &opts, &result) }
        guard status == Int32(IFJ_OK) else { return nil }
        return output(result)
    }

    /// The stored dimensions of a JPEG that libjpeg decodes completely without a warning; nil
    /// otherwise (libvips then gives the verdict). Costs a 1/8-scale decode, not a libvips load.
    static func validate(_ bytes: [UInt8], maxPixels: Int64) -> (width: Int, height: Int)? {
        var width: Int32 = 0, height: Int32 = 0
        let status = bytes.withUnsafeBytes { ifj_validate($0.baseAddress, $0.count, Double(maxPixels), &width, &height) }
        guard status == Int32(IFJ_OK) else { return nil }
        return (Int(width), Int(height))
    }

    /// Takes the encoded bytes out of a successful `ifj_result` (and frees its buffer).
    static func output(_ result: ifj_result) -> Output? {
        guard let data = result.data else { return nil }
        defer { ifj_free(data) }
        let encoded = Array(UnsafeRawBufferPointer(start: data, count: result.length))
        return Output(image: EncodedImage(bytes: encoded, width: Int(result.width), height: Int(result.height)),
                      sourceWidth: Int(result.source_width), sourceHeight: Int(result.source_height))
    }
}
