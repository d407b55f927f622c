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

    public init(width: Int? = nil, height: Int? = nil, fit: Fit = .inside, format: ImageFormat = .original, quality: Int? = nil) {
        self.width = width
        self.height = height
        self.fit = fit
        self.format = format
        self.quality = quality
    }

    /// The source as it is: no resize, no conversion. Its cache entry holds the original bytes.
    public static let original = Processing()

    public var isOriginal: Bool { width == nil && height == nil && format == .original }
    public var resizes: Bool { width != nil || height != nil }
    /// `cover` takes effect only with both sides of the box given.
    public var coversBox: Bool { fit == .cover && width != nil && height != nil }

    /// A stable text form, e.g. `w320-h320-inside-jpeg-q80` or `original`.
    public var identifier: String {
        if isOriginal { return "original" }
        var parts: [String] = []
        if let width { parts.append("w\(width)") }
        if let height { parts.append("h\(height)") }
        if resizes { parts.append(fit.rawValue) }
        parts.append(format.rawValue)
        if let quality, format.isLossy || format == .original { parts.append("q\(quality)") }
        return parts.joined(separator: "-")
    }
}

/// The image formats imgfetch reads and writes by name.
public enum ImageFormat: String, Sendable, CaseIterable {
    case original, jpeg, png, webp, avif, gif

    /// Parses a `--format` value or a file extension (`jpg`, `jpeg`, `png`, ...).
    public init?(name: String) {
        switch name.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "avif": self = .avif
        case "gif": self = .gif
        case "original": self = .original
        default: return nil
        }
    }

    public var isLossy: Bool { self == .jpeg || self == .webp || self == .avif }

    /// The suffix libvips picks its saver by.
    public var saveSuffix: String {
        switch self {
        case .jpeg: ".jpg"
        case .png: ".png"
        case .webp: ".webp"
        case .avif: ".avif"
        case .gif: ".gif"
        case .original: ""
        }
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .original: "img"
        default: rawValue
        }
    }
}
