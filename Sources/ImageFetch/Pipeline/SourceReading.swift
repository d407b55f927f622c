/// How much of its source a result read, and how its output was fitted (issue 33's record fields:
/// `resumed_from`, `partial`, `source_bytes`, `quality`, `over_budget`). Default: read whole, from
/// the start, at the quality asked for.
public struct SourceReading: Sendable, Equatable {
    /// The download continued kept bytes (`Range` + `If-Range`) from this offset; nil = from the start.
    public var resumedFrom: Int64?

    public init() {}
}
