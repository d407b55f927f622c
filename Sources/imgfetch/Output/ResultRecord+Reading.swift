import ImageFetch

/// The record's and `-v`'s words for how much of its source a result read (`SourceReading`).
extension ResultRecord {
    static func addReading(_ reading: SourceReading, to o: inout JSONObject) {
        if let offset = reading.resumedFrom { o.add("resumed_from", offset) }
        if let digest = reading.digest { o.add("digest", digest) }
        if let quality = reading.quality { o.add("quality", quality) }
        if reading.overBudget { o.add("over_budget", true) }
        if reading.partial {
            o.add("partial", true)
            if let total = reading.sourceBytes { o.add("source_bytes", total) }
        }
    }
}

extension Report {
    /// `-v` in low-data mode, for a download that used neither a low-data source nor a partial
    /// read: what low-data did (Save-Data) and that the full image was loaded.
    static func lowDataWords(_ result: ImageResult, settings: RequestOptions) -> String {
        let on = settings.lowDataMode == .on || (settings.lowDataMode == .auto && settings.networkConditions.probed == .metered)
        guard on, result.cache == .miss, !result.lowData, result.source.isNetwork else { return "" }
        let hint = settings.options.saveData ? "sent Save-Data: on; " : ""
        return ", low-data mode: \(hint)no low-data source and no partial read: loaded the full image"
    }

    /// `, resumed at N bytes`, ...: appended to the `-v` line.
    static func readingWords(_ result: ImageResult) -> String {
        let reading = result.reading
        var words = ""
        if let offset = reading.resumedFrom {
            words += ", resumed at \(offset) bytes" + (reading.digest.map { " (the whole checked by its \($0) digest)" }
                                                      ?? " (unverified: the server sent no Repr-Digest)")
        } else if let digest = reading.digest {
            words += ", \(digest) digest checked"
        }
        if reading.partial {
            let of = reading.sourceBytes.map { " of \($0)" } ?? ""
            words += result.cache == .miss ? ", partial read: \(result.downloadedBytes)\(of) bytes of a progressive JPEG downloaded, its first scans serve the thumbnail"
                                           : ", made from the first scans of a progressive JPEG (a partial read)"
        }
        return words
    }
}
