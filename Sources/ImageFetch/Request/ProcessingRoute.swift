/// Which path turns a source's bytes into the output: decided here, once, from the processing
/// (and the source, for decoding during the download). The processor's steps and the pipeline read
/// it; a new processing option that libjpeg cannot honour is one more condition in `init`.
public enum ProcessingRoute: Sendable, Hashable {
    /// The source's bytes as they are (`Processing.original`), once proven to decode completely
    /// (libjpeg's strict check for a JPEG, so libvips is not even loaded; libvips' otherwise).
    case handOut
    /// `-f jpeg` without a resize or quality: a JPEG source is handed out (libjpeg's check), any
    /// other source is converted by libvips.
    case handOutJPEG
    /// A thumbnail of a plain JPEG source decoded and resized without libvips (`JpegFastPath`):
    /// `output` jpeg is encoded by libjpeg, webp and png by libwebp and libpng, avif by libvips'
    /// saver from memory (`PixelEncoder`), from the resized pixels; `streamed`: decoded while an
    /// http body downloads (`JpegStreamDecode`).
    /// Any other source, or a JPEG libjpeg declines (ICC profile, CMYK, EXIF rotation, a warning;
    /// for png, a resolution libvips would read from EXIF), goes to libvips.
    case jpegThumbnail(streamed: Bool, output: ImageFormat = .jpeg)
    /// `-f auto` whose candidates libjpeg, libwebp and libpng all write, without what only libvips
    /// does: a PNG, WebP or GIF source is made by `PixelSourcePath` (each candidate encoded from the
    /// same pixels, the smallest kept, as libvips does); any other source as `vips`.
    case autoFormat
    /// libvips' header checks and thumbnail; a source already in the format asked for, without a
    /// resize or a quality, is handed out (known only from its header).
    case vips

    public init(processing: Processing, source: Source? = nil) {
        let p = processing.normalized
        if p.isOriginal {
            self = .handOut
        } else if !p.resizes && p.format == .jpeg && p.quality == nil {
            self = .handOutJPEG
        } else if p.resizes && !p.needsLibvips && (p.format == .jpeg || p.format == .original) {
            self = .jpegThumbnail(streamed: source?.isNetwork ?? false)
        } else if !p.needsLibvips && PixelEncoder.encodes(p.format) {
            // With or without a resize: the source's own size is a thumbnail that fits.
            self = .jpegThumbnail(streamed: source?.isNetwork ?? false, output: p.format)
        } else if p.format == .auto && !p.needsLibvips,
                  AutoFormat.candidates(p.accept).allSatisfy({ PixelEncoder.encodesDecoded($0.format) && !PixelEncoder.needsLibvips($0.format) }) {
            self = .autoFormat
        } else {
            self = .vips
        }
    }

    /// libjpeg decodes and the own resize makes the thumbnail when the source is a plain JPEG.
    public var makesJPEGThumbnail: Bool { if case .jpegThumbnail = self { true } else { false } }

    /// The format a `jpegThumbnail` writes (nil for another route).
    public var jpegThumbnailOutput: ImageFormat? { if case .jpegThumbnail(_, let output) = self { output } else { nil } }

    /// A `jpegThumbnail` decoded while the body downloads.
    public var streamsJPEG: Bool { if case .jpegThumbnail(true, _) = self { true } else { false } }

    /// A JPEG source is handed out as it is.
    public var handsOutJPEG: Bool { self == .handOut || self == .handOutJPEG }

    /// libjpeg alone (and libwebp or libpng) will most likely do the work for a source that looks
    /// like a JPEG: libvips need not be loaded ahead.
    public var mayNeedOnlyLibjpeg: Bool {
        if let output = jpegThumbnailOutput { return !PixelEncoder.needsLibvips(output) }
        return handsOutJPEG
    }
}
