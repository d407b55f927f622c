/// A placeholder `--placeholder` names.
public enum PlaceholderKind: String, Sendable, Hashable, CaseIterable, Comparable {
    case blurhash, thumbhash

    public static func < (a: PlaceholderKind, b: PlaceholderKind) -> Bool { a.rawValue < b.rawValue }
}

/// What a client paints while the image loads, computed from one small downscale of the image
/// (fitted inside 100x100, ThumbHash's limit): a BlurHash of 4x3 components, a ThumbHash (base64,
/// padded) and the alpha-weighted mean colour. All three are made and stored together.
public struct Placeholders: Sendable, Hashable {
    public let blurhash: String
    public let thumbhash: String
    public let averageColor: RGBColor

    /// The side of the box the pixels are fitted inside first.
    public static let side = ThumbHash.maxSide

    public init(of image: RGBAImage) {
        let small = image.fitting(inside: Placeholders.side)
        blurhash = BlurHash.encode(small)
        thumbhash = ThumbHash.encodeBase64(small) ?? ""
        averageColor = small.averageColor
    }

    /// Values read back (from an entry's metadata): nil unless each is well formed.
    public init?(blurhash: String?, thumbhash: String?, averageColor: String?) {
        guard let blurhash, BlurHash.isWellFormed(blurhash), let thumbhash, ThumbHash.isWellFormed(thumbhash),
              let averageColor, averageColor.utf8.count == 7, averageColor.hasPrefix("#"),
              let color = RGBColor(parsing: averageColor) else { return nil }
        self.blurhash = blurhash
        self.thumbhash = thumbhash
        self.averageColor = color
    }

    /// The placeholders of encoded bytes (decoded once, small: `PlaceholderPixels`); nil when
    /// they do not decode.
    public static func decoding(_ bytes: [UInt8], maxPixels: Int64) -> Placeholders? {
        PlaceholderPixels.decode(bytes, maxPixels: maxPixels).map(Placeholders.init(of:))
    }

    /// `#rrggbb`.
    public var averageColorHex: String { "#" + averageColor.hex }
}
