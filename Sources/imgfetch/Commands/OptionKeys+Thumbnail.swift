import ArgumentKit
import ImageFetch

/// The options of `get` and `prefetch` that reach libvips' thumbnail beyond the box and format.
extension OptionKeys {
    static let crop: ValueKey<String> = .value("crop", valueName: "centre|attention|entropy", help: "With --fit cover: the part kept. attention keeps what draws the eye (skin, colour, edges) as vipsthumbnail --smartcrop attention; entropy the busiest part.", defaultDescription: "centre", completion: .choices(Processing.Crop.allCases.map(\.rawValue)), parser: ValueParsers.oneOf(Processing.Crop.allCases.map(\.rawValue)))
    static let sharpen: FlagKey = .flag("sharpen", help: "A mild sharpen after the resize: libvips' sharpen, sigma 1 (its default 0.5 changes nothing), its other defaults.")
    static let upscale: FlagKey = .flag("upscale", help: "Enlarge a source smaller than the box (never without it).")
    static let keepMetadata: TextKey = .value("keep-metadata", valueName: "copyright[,icc]", help: "Keep the source's EXIF Copyright and Artist (JPEG, WebP, PNG, AVIF; not GIF) and/or its ICC profile (icc: no sRGB conversion). GPS, serials, maker notes, XMP and the rest are still removed.", completion: .choices(["copyright", "icc", "copyright,icc"]))
    static let allowJXL: FlagKey = .flag("allow-jxl", help: "Read JPEG XL sources: trusts libvips' JXL loader, which libvips marks untrusted (blocked by default). JXL is input only.")
}

extension Specs {
    /// The options of `get` and `prefetch` that reach libvips' thumbnail beyond the box and format.
    static let thumbnail = OptionSpec.list(
        OptionKeys.crop, OptionKeys.sharpen, OptionKeys.upscale, OptionKeys.keepMetadata, OptionKeys.allowJXL)
}
