/// How the image is transformed before it is cached and handed out: box, fit, format, quality.
/// Its `identifier` is part of the cache key: different processing, different entry.
public struct Processing: Sendable, Hashable {
    public enum Fit: String, Sendable, CaseIterable { case inside, cover }

    /// Target box in pixels; `nil` leaves that side unconstrained. Images are never upscaled.
    public var width: Int?
    public var height: Int?
    /// `.inside` (default) keeps the whole image inside the box; `.cover` fills it, cropping the centre.
    public var fit: Fit
    /// Output format; `.original` keeps the source's own.
    public var format: ImageFormat
    /// 1-100 for lossy formats; `nil` is the encoder's default (libvips: 75).
    public var quality: Int?
    /// Resize in linear light (as `vipsthumbnail --linear`) rather than in sRGB's gamma. Default off.
    public var linear: Bool
    /// What transparent pixels become in a format without alpha (JPEG). Default white.
    public var background: RGBColor

    public init(width: Int? = nil, height: Int? = nil, fit: Fit = .inside, format: ImageFormat = .original, quality: Int? = nil,
                linear: Bool = false, background: RGBColor = .white) {
        self.width = width
        self.height = height
        self.fit = fit
        self.format = format
        self.quality = quality
        self.linear = linear
        self.background = background
    }

    /// The version of what processing makes of the same bytes, part of every variant's cache key:
    /// raised whenever the picture changes for the same `identifier` (2: sRGB output, metadata
    /// removed, the 2x filter margin), so entries of older builds are misses, made again from the
    /// cached original when there is one. Originals are not affected.
    public static let renderVersion = 2

    /// The source as it is: no resize, no conversion. Its cache entry holds the original bytes.
    public static let original = Processing()

    public var isOriginal: Bool { width == nil && height == nil && format == .original }
    public var resizes: Bool { width != nil || height != nil }
    /// `cover` takes effect only with both sides of the box given.
    public var coversBox: Bool { fit == .cover && width != nil && height != nil }

    /// A stable text form, e.g. `w320-h320-inside-jpeg-q80` or `original`; `linear` and a
    /// background other than white are added when set.
    public var identifier: String {
        if isOriginal { return "original" }
        var parts: [String] = []
        if let width { parts.append("w\(width)") }
        if let height { parts.append("h\(height)") }
        if resizes { parts.append(fit.rawValue) }
        parts.append(format.rawValue)
        if let quality, format.isLossy || format == .original { parts.append("q\(quality)") }
        if linear { parts.append("linear") }
        if background != .white { parts.append("bg\(background.hex)") }
        return parts.joined(separator: "-")
    }
}
