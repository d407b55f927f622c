/// How much of its source a result read, and how its output was fitted (issue 33's record fields:
/// `resumed_from`, `partial`, `source_bytes`, `quality`, `over_budget`). Default: read whole, from
/// the start, at the quality asked for.
public struct SourceReading: Sendable, Equatable {
    /// The download continued kept bytes (`Range` + `If-Range`) from this offset; nil = from the start.
    public var resumedFrom: Int64?
    /// The RFC 9530 digest (`Repr-Digest`/`Content-Digest`) algorithms the download was checked
    /// with, e.g. `sha-256`; nil: the server sent none (a resumed body is then unverified).
    public var digest: String?
    /// The quality the output was encoded at (JPEG, WebP, AVIF made here); nil: not known or none.
    public var quality: Int?
    /// `--max-output-bytes`: even quality 20 did not fit; the smallest output was kept.
    public var overBudget = false
    /// Made from the first scans of a progressive JPEG: the download stopped once they served.
    public var partial = false
    /// With `partial` on a miss: the source's whole length as announced (Content-Length).
    public var sourceBytes: Int64?

    public init() {}
}
