extension Int64 {
    /// `self + other`, held at `Int64.max` / `Int64.min` instead of trapping: for totals of values
    /// read from disk.
    public func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
