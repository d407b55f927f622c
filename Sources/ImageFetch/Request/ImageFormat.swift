/// The image formats imgfetch writes, by name. Everything said about a format (its names and file
/// extensions, whether it keeps alpha and animation, its libvips saver) is in `ImageFormat.registry`:
/// the option parser, `--help`, error messages, cache file names and the man page read it there.
public enum ImageFormat: String, Sendable, CaseIterable, Encodable {
    case original, jpeg, png, webp, avif, gif
    /// The smallest of the candidate formats that suit the picture (`Processing.accept`,
    /// `AutoFormat`): chosen per image; an entry records the format chosen.
    case auto

    /// One output format's entry in the registry.
    public struct Spec: Sendable {
        public let format: ImageFormat
        /// File extensions naming it; the first is the one written.
        public let extensions: [String]
        /// Keeps an alpha channel (otherwise transparency is flattened onto `--background`).
        public let hasAlpha: Bool
        /// Keeps every frame of an animated source (otherwise the first frame).
        public let isAnimated: Bool
        /// Takes a quality (`-q`).
        public let isLossy: Bool
        /// The suffix libvips picks its buffer saver by; the shim adds the quality and `strip`
        /// (and, for AVIF, `compression=av1` on the heif saver).
        public let saveSuffix: String
        /// The libvips saver, for the documentation.
        public let saver: String
    }

    /// Every output format, in the order help texts list them.
    public static let registry: [Spec] = [
        Spec(format: .jpeg, extensions: ["jpg", "jpeg"], hasAlpha: false, isAnimated: false, isLossy: true, saveSuffix: ".jpg", saver: "jpegsave"),
        Spec(format: .png, extensions: ["png"], hasAlpha: true, isAnimated: false, isLossy: false, saveSuffix: ".png", saver: "pngsave"),
        Spec(format: .webp, extensions: ["webp"], hasAlpha: true, isAnimated: true, isLossy: true, saveSuffix: ".webp", saver: "webpsave"),
        Spec(format: .avif, extensions: ["avif"], hasAlpha: true, isAnimated: false, isLossy: true, saveSuffix: ".avif", saver: "heifsave (AV1)"),
        Spec(format: .gif, extensions: ["gif"], hasAlpha: true, isAnimated: true, isLossy: false, saveSuffix: ".gif", saver: "gifsave"),
    ]

    /// The registry entry; nil for `.original` (the source's own format) and `.auto`.
    public var spec: Spec? { ImageFormat.registry.first { $0.format == self } }

    /// Parses a `--format` value (a name, an extension, or `original`).
    public init?(name: String) {
        let lower = name.lowercased()
        if lower == "original" { self = .original; return }
        if lower == "auto" { self = .auto; return }
        guard let spec = ImageFormat.registry.first(where: { $0.format.rawValue == lower || $0.extensions.contains(lower) }) else { return nil }
        self = spec.format
    }

    /// The format a file extension names (`jpg`, `PNG`, ...); nil when it names none.
    public init?(fileExtension ext: String) {
        let lower = ext.lowercased()
        guard let spec = ImageFormat.registry.first(where: { $0.extensions.contains(lower) }) else { return nil }
        self = spec.format
    }

    /// "jpeg, png, webp, avif, gif, auto or original": the values `--format` takes, for help and errors.
    public static var namesForHelp: String {
        registry.map(\.format.rawValue).joined(separator: ", ") + ", auto or original"
    }

    /// The file extensions of every output format: "jpg, jpeg, png, ...".
    public static var extensionsForHelp: String {
        registry.flatMap(\.extensions).joined(separator: ", ")
    }

    /// Takes a quality (`.auto` does: its lossy candidates do).
    public var isLossy: Bool { spec?.isLossy ?? (self == .auto) }
    public var hasAlpha: Bool { spec?.hasAlpha ?? true }
    public var isAnimated: Bool { spec?.isAnimated ?? false }
    /// The suffix libvips picks its saver by ("" for `.original`).
    public var saveSuffix: String { spec?.saveSuffix ?? "" }
    /// The extension of a cache file holding this format (`img` for bytes of an unknown format).
    public var fileExtension: String { spec?.extensions.first ?? "img" }
}
