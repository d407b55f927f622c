/// `-f auto`: which formats are tried for a picture. Each candidate that suits it encodes the same
/// thumbnail (decoded once); the smallest file wins. A picture with transparency is never given to
/// a format without alpha.
public enum AutoFormat {
    /// One candidate, as the processor tries it.
    public struct Candidate: Sendable, Equatable {
        public let format: ImageFormat
        /// Tried only for a picture with transparency (the default PNG: never smaller than WebP for
        /// an opaque photo, the one lossless choice with alpha).
        public let onlyWithTransparency: Bool
    }

    /// WebP or JPEG for an opaque picture, WebP or PNG for one with transparency. AVIF is not a
    /// default (its encoder costs several times the others per thumbnail): `--accept` names it.
    public static let defaultCandidates: [Candidate] = [
        Candidate(format: .webp, onlyWithTransparency: false),
        Candidate(format: .jpeg, onlyWithTransparency: false),
        Candidate(format: .png, onlyWithTransparency: true),
    ]

    /// The candidates of `accept` (`--accept`; nil: the default ones).
    public static func candidates(_ accept: [ImageFormat]?) -> [Candidate] {
        guard let accept else { return defaultCandidates }
        return accept.map { Candidate(format: $0, onlyWithTransparency: false) }
    }

    /// One spelling of a list: sorted by name, without duplicates (the same choice, one cache entry).
    public static func normalized(_ formats: [ImageFormat]) -> [ImageFormat] {
        Array(Set(formats)).sorted { $0.rawValue < $1.rawValue }
    }

    /// The formats `--accept` may name: every output format.
    public static var acceptable: [ImageFormat] { ImageFormat.registry.map(\.format) }
}
