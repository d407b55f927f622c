/// How the image is transformed before it is cached and handed out: box, fit, format, quality.
/// Every stored property is part of the cache key (its synthesised encoding, `EntryKey`), taken
/// from `normalized`: different output, different entry; one output, one entry.
/// `identifier` is the readable form an entry records as its `variant`.
public struct Processing: Sendable, Hashable, Encodable {
    public enum Fit: String, Sendable, CaseIterable, Encodable { case inside, cover }

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
    /// `-f auto`'s candidates (`--accept`); nil: the default ones (`AutoFormat.defaultCandidates`).
    /// Normalised sorted, without duplicates, and nil for any other format.
    public var accept: [ImageFormat]? = nil
    /// Which part `cover` keeps (libvips' `crop`, `VIPS_INTERESTING_*`); `nil` is `.centre`, as
    /// before this option existed (so such keys are unchanged: the encoder omits nil).
    public var crop: Crop?
    /// libvips' `sharpen` (sigma 1, its other defaults) after the resize; `nil` is off.
    public var sharpen: Bool?
    /// A box larger than the source enlarges it (libvips' `size=both`); `nil`: never enlarged.
    public var upscale: Bool?
    /// The switches above that act only with a resize, in the order `identifier` names them: each
    /// is nil unless on and resizing (`normalized`), and named in the variant when on. A new one is
    /// its field and its row here.
    static let resizeSwitches: [(name: String, field: WritableKeyPath<Processing, Bool?> & Sendable)] = [
        ("sharpen", \.sharpen), ("upscale", \.upscale),
    ]
    /// Metadata kept from the source (`copyright`: EXIF Copyright and Artist; `icc`: its ICC
    /// profile instead of a conversion to sRGB); `nil` keeps none.
    public var keepMetadata: KeptMetadata?

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

    /// The same output, spelled one way: what keys are made of. The source as it is (no resize, the
    /// source's format) is `.original`, whatever else is set (nothing else applies to it); a
    /// quality is dropped for a format that takes none; `cover` without both sides is `inside`; a
    /// default (centre crop, no sharpen, no upscale, no metadata) is nil, which keeps older keys;
    /// `crop`, `sharpen` and `upscale` only with a resize (`crop` only with `cover`), `copyright` only for a
    /// format that carries EXIF.
    public var normalized: Processing {
        if isOriginal { return .original }
        var p = self
        if format != .original, !format.isLossy { p.quality = nil }
        if !coversBox { p.fit = .inside }
        p.accept = format == .auto ? accept.map(AutoFormat.normalized) : nil
        if p.crop == .centre || p.fit != .cover { p.crop = nil }
        for (_, field) in Self.resizeSwitches where p[keyPath: field] == false || !resizes { p[keyPath: field] = nil }
        if var kept = p.keepMetadata {
            if format == .gif { kept.copyright = false }
            p.keepMetadata = kept.isEmpty ? nil : kept
        }
        return p
    }

    /// This processing with the format `.original`, when that spelling gives the very same output
    /// for a source whose own format is `format` (the format is known only once the source is
    /// seen); nil when the format is already `.original` or the two differ (a re-encode at a
    /// quality is not the source handed out). The entry of such an output is kept under this
    /// spelling (`RequestPlan.EntryKeys.stored`), so `-f X`, `-o FILE.X` and `original` share it.
    public var spelledAsSource: Processing? {
        guard format != .original, format != .auto, resizes || quality == nil else { return nil }
        var p = self
        p.format = .original
        return p.normalized
    }

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
        if let accept, format == .auto { parts.append("accept." + accept.map(\.rawValue).joined(separator: ".")) }
        if linear { parts.append("linear") }
        if background != .white { parts.append("bg\(background.hex)") }
        if let crop, crop != .centre, resizes, fit == .cover { parts.append(crop.rawValue) }
        for (name, field) in Self.resizeSwitches where self[keyPath: field] == true && resizes { parts.append(name) }
        if let keepMetadata, !keepMetadata.isEmpty { parts.append("keep-" + keepMetadata.names.joined(separator: "+")) }
        return parts.joined(separator: "-")
    }
}
