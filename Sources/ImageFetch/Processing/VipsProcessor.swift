import Dispatch

/// Decodes and downsamples with libvips: header and limits first, then a shrink-on-load thumbnail.
/// libvips is loaded (dlopen) on first use, so a process that only serves cache hits never loads it.
public struct VipsProcessor: ImageProcessing {
    /// An animation with more frames is refused from its header, before any decoding (an animation
    /// bomb: a few KB of GIF can hold 100,000 frames). Default 1000.
    public var maxFrames: Int

    public init(maxFrames: Int = 1000) {
        self.maxFrames = maxFrames
    }

    /// Placeholders come from the thumbnail's pixels in the same pass (libjpeg's and libvips'); an
    /// original handed out is decoded small once (libjpeg alone for a JPEG).
    public func process(_ bytes: [UInt8], with processing: Processing, route: ProcessingRoute, maxPixels: Int64,
                        placeholders: Bool) throws(FetchError) -> ProcessedImage {
        var image = try make(bytes, with: processing, route: route, maxPixels: maxPixels, placeholders: placeholders)
        if placeholders && image.placeholders == nil {
            image.placeholders = Placeholders.decoding(image.bytes, maxPixels: maxPixels)
        }
        return image
    }

    func make(_ bytes: [UInt8], with processing: Processing, route: ProcessingRoute, maxPixels: Int64,
              placeholders: Bool) throws(FetchError) -> ProcessedImage {
        guard !bytes.isEmpty else { throw .invalidImage("empty response (0 bytes)") }
        let cover = processing.coversBox
        // Damaged EXIF or XMP in a JPEG: a re-encoded image drops it (a handed-out original keeps its bytes).
        let damage = JpegMetadataCheck.damage(in: bytes)
        if let output = route.jpegThumbnailOutput,
           let fast = try JpegFastPath.thumbnail(bytes, width: processing.width, height: processing.height, cover: cover,
                                                 quality: processing.quality, maxPixels: maxPixels, placeholders: placeholders,
                                                 output: output) {
            return fast.processed.dropping(damage)
        }
        // PNG, WebP and GIF stills decoded, resized and encoded without libvips (nil: libvips' turn).
        if let made = PixelSourcePath.thumbnail(bytes, processing: processing, route: route, maxPixels: maxPixels) {
            return made
        }
        // Any JPEG libvips is given passes libjpeg's strict check first: libvips 8.14's own check
        // misses corruption in the last rows and races with its threads. A JPEG handed out as it is
        // needs nothing more, so libvips is not even loaded.
        if let size = try JpegFastPath.validate(bytes, maxPixels: maxPixels), route.handsOutJPEG {
            return ProcessedImage(bytes: bytes, width: size.width, height: size.height, format: "jpeg")
        }
        try loadVips()
        let header: ImageHeader
        do { header = try VipsBridge.header(bytes) } catch {
            // libheif refuses a header over 16384x16384 before saying how large it is: the AVIF's own boxes do.
            if let declared = HEIFDeclaredSize.largest(in: bytes), Int64(declared.width) * Int64(declared.height) > maxPixels {
                let pixels = Int64(declared.width) * Int64(declared.height)
                throw .tooLarge("\(declared.width)x\(declared.height) is \(pixels) pixels, over --max-pixels \(maxPixels)")
            }
            throw VipsProcessor.memoryFailure(error) ?? VipsProcessor.refusal(error, bytes)
        }
        let sourceFormat = header.format
        let candidates = try VipsProcessor.candidates(processing)
        let target = processing.format == .original ? VipsProcessor.saveFormat(forSource: header) : candidates?.first?.format ?? processing.format
        // An animation to a format that keeps one decodes every frame, and every frame counts. `-f auto`
        // takes the first frame (its candidates may be still formats, and each is made from one image:
        // all frames loaded for a PNG were one stacked image whose record gave a frame's size).
        let allFrames = header.pages > 1 && target.isAnimated && candidates == nil && ["gif", "webp"].contains(sourceFormat)
        if allFrames && header.pages > maxFrames {
            throw .tooLarge("\(header.pages) frames, over the limit of \(maxFrames) frames")
        }
        let frames = allFrames ? Int64(header.pages) : 1
        let (pixels, overflow) = (Int64(header.width) * Int64(header.height)).multipliedReportingOverflow(by: frames)
        if overflow || pixels > maxPixels {
            let what = frames > 1 ? "\(header.width)x\(header.height) x \(frames) frames" : "\(header.width)x\(header.height)"
            throw .tooLarge("\(what) is \(overflow ? "too many" : String(pixels)) pixels, over --max-pixels \(maxPixels)")
        }
        if route == .handOut || (!processing.resizes && processing.format.rawValue == sourceFormat && processing.quality == nil) {
            // The original bytes are handed out as they are, once proven to decode completely.
            do { try VipsBridge.validate(bytes) } catch {
                throw VipsProcessor.memoryFailure(error) ?? .invalidImage(VipsProcessor.describe(error, bytes))
            }
            return ProcessedImage(bytes: bytes, width: header.width, height: header.height, format: sourceFormat)
        }
        if processing.upscale == true, let pixels = processing.outputPixels(sourceWidth: header.width, sourceHeight: header.height),
           pixels * Double(frames) > Double(maxPixels) {
            throw .tooLarge("--upscale would make \(Int64(pixels)) pixels, over --max-pixels \(maxPixels)")
        }
        // Cover scales the whole source before it crops: a still image whose scaled source would be
        // over the limit is cropped first (libvips, vips_cropfirst.c); every frame of an animation is not.
        if allFrames, let scaled = processing.coverIntermediatePixels(sourceWidth: header.width, sourceHeight: header.height),
           scaled.width * scaled.height * Double(frames) > Double(maxPixels) {
            let size = "\(Int64(scaled.width))x\(Int64(scaled.height))"
            throw .tooLarge("--fit cover would scale each of \(frames) frames to \(size) before cropping, \(Int64(scaled.width * scaled.height * Double(frames))) pixels, over --max-pixels \(maxPixels)")
        }
        if target == .avif && !VipsBridge.canSave(suffix: ".avif") {
            throw .unsupportedFormat("this libvips build cannot write AVIF; choose --format webp, jpeg or png")
        }
        var processing = processing
        if damage.contains(where: { $0.block == "exif" }) { processing.keepMetadata?.copyright = false }   // not kept either
        do {
            let made = try VipsBridge.thumbnail(bytes, for: processing, saving: target, allPages: allFrames,
                                                maxPixels: maxPixels, candidates: candidates, pixels: placeholders)
            let out = made.image
            let keepEXIF = processing.keepMetadata?.copyright == true
            let bytes = made.format == .webp ? WebPMetadata.removingMetadata(out.bytes, keepingEXIF: keepEXIF) : out.bytes
            var image = ProcessedImage(bytes: bytes, width: out.width, height: out.height, format: made.format.rawValue,
                                       sourceWidth: header.width, sourceHeight: header.height, sourceFormat: sourceFormat)
            image.placeholders = made.pixels.map(Placeholders.init(of:))
            if let problem = header.profileProblem {
                image.warnings.append("its embedded ICC profile \(problem): ignored, the picture taken as sRGB")
            }
            return image.dropping(damage)
        } catch {
            if let memory = VipsProcessor.memoryFailure(error) { throw memory }
            if candidates != nil { throw .unsupportedFormat("-f auto: \(error.message)") }
            if target == .avif { throw .unsupportedFormat("AVIF encoding failed: \(error.message)") }
            throw .invalidImage(VipsProcessor.describe(error, bytes))
        }
    }

    /// JPEG thumbnails of network sources decode while they download (see `JpegStreamDecode`):
    /// the same cases as the fast path in `process`, which it stands in for.
    public func streamingDecode(for source: Source, processing: Processing, route: ProcessingRoute,
                                maxPixels: Int64) -> (any StreamingDecode)? {
        guard route.streamsJPEG, let output = route.jpegThumbnailOutput else { return nil }
        return JpegStreamDecode(width: processing.width, height: processing.height, cover: processing.coversBox,
                                quality: processing.quality, maxPixels: maxPixels, output: output)
    }

    /// Starts loading libvips (dlopen and vips_init) on a background thread, so it overlaps the
    /// download instead of following it. Idempotent and cheap once loaded.
    /// Not when libjpeg alone will most likely do the work (a .jpg source to a JPEG thumbnail, or
    /// handed out as it is), nor for a .png, .webp or .gif source made into a PNG or WebP, or by
    /// `-f auto` (`PixelSourcePath`; `-f original` is not told from `-f jpeg` here: libvips writes a
    /// GIF's):
    /// loading libvips anyway would cost CPU time and memory for nothing.
    public func prepare(for source: Source, route: ProcessingRoute) {
        if source.looksLikeJPEG, route.mayNeedOnlyLibjpeg { return }
        if PixelSourcePath.mayTake(source), route == .autoFormat { return }
        if PixelSourcePath.mayTake(source), let output = route.jpegThumbnailOutput, !PixelEncoder.needsLibvips(output),
           output != .jpeg || !PixelSourcePath.mayTake(source, gifOnly: true) { return }
        VipsProcessor.preload
    }

    private static let preload: Void = {
        DispatchQueue.global(qos: .userInitiated).async { _ = try? VipsBridge.load() }
    }()

    /// The check an original gets before it is handed out: libjpeg's strict decode for a JPEG,
    /// libvips with `fail_on=error` for anything else.
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

    /// `-f auto`'s candidates this libvips can write (nil for any other format).
    static func candidates(_ processing: Processing) throws(FetchError) -> [AutoFormat.Candidate]? {
        guard processing.format == .auto else { return nil }
        let all = AutoFormat.candidates(processing.accept)
        let usable = all.filter { $0.format != .avif || VipsBridge.canSave(suffix: ".avif") }
        guard !usable.isEmpty else { throw .unsupportedFormat("this libvips build cannot write AVIF; --accept another format too") }
        return usable
    }

    /// The format an `original`-format variant is written in: the source's own when libvips can write it.
    static func saveFormat(forSource header: ImageHeader) -> ImageFormat {
        if let own = ImageFormat(name: header.format), own != .original, own != .avif || VipsBridge.canSave(suffix: ".avif") {
            return own
        }
        return header.hasAlpha ? .png : .jpeg
    }

    /// Formats libvips could read but imgfetch does not, in plain words (libvips would say
    /// "svgload_buffer: operation is blocked" or "not a known format"); else `describe`.
    static func refusal(_ error: VipsFailure, _ bytes: [UInt8]) -> FetchError {
        let head = String(decoding: bytes.prefix(256), as: UTF8.self).lowercased()
        if error.message.contains("svgload") || (head.contains("<svg") && !head.contains("<html")) {
            return .unsupportedFormat("SVG is not accepted: libvips marks its SVG loader untrusted (a full renderer run on untrusted input)")
        }
        if error.message.contains("jxlload") {
            return .unsupportedFormat("JPEG XL is not accepted unless allowed: libvips marks its JXL loader untrusted")
        }
        if bytes.count >= 14, bytes[0] == 0x42, bytes[1] == 0x4D {
            return .unsupportedFormat("BMP is not accepted: libvips reads it only through its ImageMagick module, which imgfetch does not load")
        }
        return .invalidImage(describe(error, bytes))
    }

    /// libvips could not allocate what the image needs ("vips_tracked: out of memory --- size ==
    /// 8432MB" under a memory limit): the image is too large for this process, not undecodable.
    static func memoryFailure(_ error: VipsFailure) -> FetchError? {
        let lines = error.message.split(separator: "\n")
        guard let line = lines.first(where: { $0.contains("out of memory") || $0.contains("unable to allocate") }) else { return nil }
        return .tooLarge("libvips could not allocate the memory it needs (\(line)): too large for this process's memory")
    }

    /// A one-line reason, with a hint when the bytes look like HTML (an error page served as an image).
    static func describe(_ error: VipsFailure, _ bytes: [UInt8]) -> String {
        let head = String(decoding: bytes.prefix(64), as: UTF8.self).lowercased()
        if head.contains("<html") || head.contains("<!doctype") { return "not an image (the response is HTML)" }
        // libvips' source adds "bad seek to N" when libheif reads past the end: noise before the reason.
        let lines = error.message.split(separator: "\n").map(String.init)
        let meaningful = lines.filter { !$0.contains("bad seek to ") }
        if meaningful.contains(where: { $0.contains("bad image dimensions on decode") }) {
            return "not a decodable image (its picture decodes to another size than its header declares: "
                + "a multi-layer AVIF whose header names one layer, which libheif cannot decode alone)"
        }
        let firstLine = meaningful.first ?? lines.first ?? "unknown error"
        return "not a decodable image (\(firstLine))"
    }
}
