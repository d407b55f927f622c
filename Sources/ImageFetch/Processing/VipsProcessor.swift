import Dispatch

/// Decodes and downsamples with libvips: header and limits first, then a shrink-on-load thumbnail.
/// libvips is loaded (dlopen) on first use, so a process that only serves cache hits never loads it.
public struct VipsProcessor: ImageProcessing {
    public init() {}

    public func process(_ bytes: [UInt8], with processing: Processing, maxPixels: Int64) throws(FetchError) -> ProcessedImage {
        guard !bytes.isEmpty else { throw .invalidImage("empty response (0 bytes)") }
        let cover = processing.coversBox
        if JpegFastPath.makesThumbnail(processing),
           let fast = try JpegFastPath.thumbnail(bytes, width: processing.width, height: processing.height, cover: cover,
                                                 quality: processing.quality, maxPixels: maxPixels) {
            return fast.processed
        }
        // Any JPEG libvips is given passes libjpeg's strict check first: libvips 8.14's own check
        // misses corruption in the last rows and races with its threads. A JPEG handed out as it is
        // needs nothing more, so libvips is not even loaded.
        if let size = try JpegFastPath.validate(bytes, maxPixels: maxPixels), JpegFastPath.handsOutAsIs(processing) {
            return ProcessedImage(bytes: bytes, width: size.width, height: size.height, format: "jpeg")
        }
        try loadVips()
        let header: ImageHeader
        do { header = try VipsBridge.header(bytes) } catch { throw .invalidImage(VipsProcessor.describe(error, bytes)) }
        let pixels = Int64(header.width) * Int64(header.height)
        if pixels > maxPixels {
            throw .tooLarge("\(header.width)x\(header.height) is \(pixels) pixels, over --max-pixels \(maxPixels)")
        }
        let sourceFormat = header.format
        if processing.isOriginal || (!processing.resizes && processing.format.rawValue == sourceFormat && processing.quality == nil) {
            // The original bytes are handed out as they are, once proven to decode completely.
            do { try VipsBridge.validate(bytes) } catch { throw .invalidImage(VipsProcessor.describe(error, bytes)) }
            return ProcessedImage(bytes: bytes, width: header.width, height: header.height, format: sourceFormat)
        }
        let target = processing.format == .original ? VipsProcessor.saveFormat(forSource: header) : processing.format
        if target == .avif && !VipsBridge.canSave(suffix: ".avif") {
            throw .unsupportedFormat("this libvips build cannot write AVIF; choose --format webp, jpeg or png")
        }
        do {
            let out = try VipsBridge.thumbnail(bytes, width: processing.width, height: processing.height, cover: cover,
                                               suffix: target.saveSuffix, quality: target.isLossy ? processing.quality : nil)
            return ProcessedImage(bytes: out.bytes, width: out.width, height: out.height, format: target.rawValue,
                                  sourceWidth: header.width, sourceHeight: header.height, sourceFormat: sourceFormat)
        } catch {
            if target == .avif { throw .unsupportedFormat("AVIF encoding failed: \(error.message)") }
            throw .invalidImage(VipsProcessor.describe(error, bytes))
        }
    }

    /// JPEG thumbnails of network sources decode while they download (see `JpegStreamDecode`):
    /// the same cases as the fast path in `process`, which it stands in for.
    public func streamingDecode(for source: Source, processing: Processing, maxPixels: Int64) -> (any StreamingDecode)? {
        guard source.isNetwork, JpegFastPath.makesThumbnail(processing) else { return nil }
        return JpegStreamDecode(width: processing.width, height: processing.height, cover: processing.coversBox,
                                quality: processing.quality, maxPixels: maxPixels)
    }

    /// Starts loading libvips (~45 ms of dlopen and vips_init) on a background thread, so it overlaps
    /// the download instead of following it. Idempotent and cheap once loaded.
    /// Not when libjpeg alone will most likely do the work (a .jpg source to a JPEG thumbnail, or
    /// handed out as it is): loading libvips anyway would cost ~25 ms of CPU and ~25 MB.
    public func prepare(for source: Source, processing: Processing) {
        if source.looksLikeJPEG, JpegFastPath.makesThumbnail(processing) || JpegFastPath.handsOutAsIs(processing) { return }
        VipsProcessor.preload
    }

    private static let preload: Void = {
        DispatchQueue.global(qos: .userInitiated).async { _ = try? VipsBridge.load() }
    }()

    /// The check an original gets before it is handed out: libjpeg's strict decode for a JPEG,
    /// libvips with `fail_on=warning` for anything else.
    public func decodeFailure(_ bytes: [UInt8]) -> String? {
        switch JpegFastPath.check(bytes, maxPixels: Int64.max) {
        case .whole: return nil
        case .corrupt(let message): return "libjpeg: \(message)"
        case .undecided: break
        }
        do { try loadVips() } catch { return error.message }
        do {
            try VipsBridge.validate(bytes)
            return nil
        } catch {
            return error.message
        }
    }

    func loadVips() throws(FetchError) {
        do { try VipsBridge.load() } catch { throw .dependencyMissing("libvips could not be loaded: \(error.message)") }
    }

    /// The format an `original`-format variant is written in: the source's own when libvips can write it.
    static func saveFormat(forSource header: ImageHeader) -> ImageFormat {
        if let own = ImageFormat(name: header.format), own != .original, own != .avif || VipsBridge.canSave(suffix: ".avif") {
            return own
        }
        return header.hasAlpha ? .png : .jpeg
    }

    /// A one-line reason, with a hint when the bytes look like HTML (an error page served as an image).
    static func describe(_ error: VipsFailure, _ bytes: [UInt8]) -> String {
        let head = String(decoding: bytes.prefix(64), as: UTF8.self).lowercased()
        if head.contains("<html") || head.contains("<!doctype") { return "not an image (the response is HTML)" }
        let firstLine = error.message.split(separator: "\n").first.map(String.init) ?? "unknown error"
        return "not a decodable image (\(firstLine))"
    }
}
