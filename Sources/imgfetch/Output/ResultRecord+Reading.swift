import ImageFetch

/// The record's and `-v`'s words for how much of its source a result read (`SourceReading`).
extension ResultRecord {
    static func addReading(_ reading: SourceReading, to o: inout JSONObject) {
        if let offset = reading.resumedFrom { o.add("resumed_from", offset) }
        if let quality = reading.quality { o.add("quality", quality) }
        if reading.overBudget { o.add("over_budget", true) }
    }
}

extension Report {
    /// `, resumed at N bytes`, ...: appended to the `-v` line.
    static func readingWords(_ reading: SourceReading) -> String {
        var words = ""
        if let offset = reading.resumedFrom { words += ", resumed at \(offset) bytes" }
        return words
    }
}
