extension Processing {
    /// What `cover` keeps of the overflowing side: libvips' `VipsInteresting` of the same names.
    public enum Crop: String, Sendable, CaseIterable, Encodable {
        /// The centre (the default: `cover` as it always was).
        case centre
        /// The region libvips' attention measure scores highest (skin tones, saturation, edges),
        /// as `vipsthumbnail --smartcrop attention`.
        case attention
        /// The region of highest entropy.
        case entropy
    }

    /// Metadata kept from the source; everything else (GPS, camera serials, maker notes, XMP,
    /// IPTC) is still removed.
    public struct KeptMetadata: Sendable, Hashable, Encodable {
        /// EXIF Copyright and Artist, in the formats that carry EXIF (JPEG, WebP, PNG, AVIF; not GIF).
        public var copyright: Bool
        /// The source's ICC profile, embedded, instead of a conversion to sRGB.
        public var icc: Bool

        public init(copyright: Bool = false, icc: Bool = false) {
            self.copyright = copyright
            self.icc = icc
        }

        /// The names of `--keep-metadata`, in this order.
        public static let allNames = ["copyright", "icc"]

        /// `copyright,icc` (any order, each once at most); nil for an unknown or repeated name.
        public init?(parsing text: String) {
            self.init()
            for name in text.split(separator: ",", omittingEmptySubsequences: false) {
                switch name {
                case "copyright" where !copyright: copyright = true
                case "icc" where !icc: icc = true
                default: return nil
                }
            }
        }

        public var isEmpty: Bool { !copyright && !icc }
        public var names: [String] { (copyright ? ["copyright"] : []) + (icc ? ["icc"] : []) }
    }

    /// Changes the pixels or the bytes in a way libjpeg's fast path cannot (it crops the centre,
    /// never enlarges, never sharpens and keeps no metadata): such a request goes to libvips.
    var needsLibvips: Bool {
        linear || crop != nil || sharpen == true || upscale == true || keepMetadata != nil
    }
}

extension Processing {
    /// The pixels of the output for a source of that size when it may be enlarged (`upscale`): the
    /// box for `cover`, else the source scaled to fit inside it; nil without a resize. Checked
    /// against `--max-pixels` before anything is decoded.
    func outputPixels(sourceWidth: Int, sourceHeight: Int) -> Double? {
        guard resizes, sourceWidth > 0, sourceHeight > 0 else { return nil }
        if coversBox, let width, let height { return Double(width) * Double(height) }
        let scales = [width.map { Double($0) / Double(sourceWidth) }, height.map { Double($0) / Double(sourceHeight) }]
        let scale = scales.compactMap { $0 }.min() ?? 1
        return (Double(sourceWidth) * scale).rounded() * (Double(sourceHeight) * scale).rounded()
    }

    /// The pixels `cover` with `upscale` scales the whole source to before it crops (for a 65500x2
    /// source and a 300x300 box, 9,825,000x300); nil for any other processing, whose largest image
    /// is the source or the output. Over `--max-pixels`, libvips crops the source first (a still
    /// image: `vips_cropfirst.c`), and an animation is refused.
    func coverIntermediatePixels(sourceWidth: Int, sourceHeight: Int) -> (width: Double, height: Double)? {
        guard resizes, coversBox, upscale == true, let width, let height, sourceWidth > 0, sourceHeight > 0 else { return nil }
        let scale = max(Double(width) / Double(sourceWidth), Double(height) / Double(sourceHeight))
        return ((Double(sourceWidth) * scale).rounded(), (Double(sourceHeight) * scale).rounded())
    }
}
