/// An encoded image ready to cache and hand out.
public struct ProcessedImage: Sendable {
    public var bytes: [UInt8]
    public var width: Int
    public var height: Int
    /// `jpeg`, `png`, `webp`, `avif`, `gif`, ... (the actual format of `bytes`).
    public var format: String
    /// The decoded source's own dimensions and format (what an `original` entry records).
    public var sourceWidth: Int
    public var sourceHeight: Int
    public var sourceFormat: String

    public init(bytes: [UInt8], width: Int, height: Int, format: String, sourceWidth: Int? = nil, sourceHeight: Int? = nil, sourceFormat: String? = nil) {
        self.bytes = bytes
        self.width = width
        self.height = height
        self.format = format
        self.sourceWidth = sourceWidth ?? width
        self.sourceHeight = sourceHeight ?? height
        self.sourceFormat = sourceFormat ?? format
    }
}

/// The processing seam: `VipsProcessor` is the default implementation.
public protocol ImageProcessing: Sendable {
    /// Checks the header against `maxPixels` before any decode, then decodes, downsamples and encodes.
    /// Never returns a partial or grey image: truncated, empty or non-image input throws `.invalidImage`.
    func process(_ bytes: [UInt8], with processing: Processing, maxPixels: Int64) throws(FetchError) -> ProcessedImage
    /// Called when a retrieval is about to load from a source: a chance to load libraries in the
    /// background while the download runs. Must return at once.
    func prepare(for source: Source, processing: Processing)
    /// Whether the bytes decode completely (for `cache verify`); the failure message otherwise.
    func decodeFailure(_ bytes: [UInt8]) -> String?
}

extension ImageProcessing {
    public func prepare(for source: Source, processing: Processing) {}
}
