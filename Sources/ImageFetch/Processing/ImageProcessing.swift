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
    /// Computed from these pixels when the request asks for placeholders (nil otherwise).
    public var placeholders: Placeholders? = nil
    /// What was ignored on the way, in words (an unusable ICC profile): the result's warnings.
    public var warnings: [String] = []
    /// The source's metadata blocks that were damaged and dropped (`exif`, `xmp`: `JpegMetadataCheck`),
    /// the record's `metadata_dropped`; kept in the cache entry for the records of later hits.
    public var droppedMetadata: [String] = []

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

/// The processing seam: `VipsProcessor` is the default implementation. Each call is given the route
/// the plan chose (`RequestPlan.SourcePlan.route`): a processor never derives one.
public protocol ImageProcessing: Sendable {
    /// Checks the header against `maxPixels` before any decode, then decodes, downsamples and encodes
    /// by `route`, with the placeholders of the output too when `placeholders`.
    /// Never returns a partial or grey image: truncated, empty or non-image input throws `.invalidImage`.
    func process(_ bytes: [UInt8], with processing: Processing, route: ProcessingRoute, maxPixels: Int64,
                 placeholders: Bool) throws(FetchError) -> ProcessedImage
    /// Called when a retrieval is about to load from a source: a chance to load libraries in the
    /// background while the download runs. Must return at once.
    func prepare(for source: Source, route: ProcessingRoute)
    /// Whether the bytes decode completely, by the strict check originals get before they are handed
    /// out (for `cache verify`); the failure message otherwise.
    func decodeFailure(_ bytes: [UInt8]) -> String?
    /// A decode to feed with the body of `source` while it downloads, so processing overlaps the
    /// transfer; nil when this processing has none. Default: nil.
    func streamingDecode(for source: Source, processing: Processing, route: ProcessingRoute, maxPixels: Int64) -> (any StreamingDecode)?
}

extension ImageProcessing {
    public func prepare(for source: Source, route: ProcessingRoute) {}
    public func streamingDecode(for source: Source, processing: Processing, route: ProcessingRoute,
                                maxPixels: Int64) -> (any StreamingDecode)? { nil }
}

/// A decode that runs while the body downloads (`ImageProcessing.streamingDecode`). Keep it alive
/// until the load that carries its tap has returned.
public protocol StreamingDecode: AnyObject, Sendable {
    /// Where the loader delivers the body as it arrives.
    var tap: BodyTap { get }
    /// Waits for the decode; the image exactly as `process` would make it from `bytes` (the whole
    /// body), or nil when the decode did not see exactly those bytes or declined: process them then.
    func result(for bytes: [UInt8]) -> ProcessedImage?
}
