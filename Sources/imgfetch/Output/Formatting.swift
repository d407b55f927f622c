import ImageFetch

/// Human forms of sizes, ages and times for tables and messages.
enum Formatting {
    static func size(_ bytes: Int64) -> String {
        let units = ["B", "K", "M", "G", "T"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        if unit == 0 { return "\(bytes)B" }
        return value >= 10 ? "\(Int(value.rounded()))\(units[unit])" : "\((value * 10).rounded() / 10)\(units[unit])"
    }

    static func duration(_ seconds: Double) -> String {
        let s = abs(seconds)
        if s < 60 { return "\(Int(s))s" }
        if s < 3600 { return "\(Int(s / 60))m" }
        if s < 86_400 { return "\(Int(s / 3600))h" }
        return "\(Int(s / 86_400))d"
    }

    static func seconds(_ s: Double) -> String {
        s < 10 ? "\((s * 100).rounded() / 100) s" : "\((s * 10).rounded() / 10) s"
    }

    static func expiry(_ entry: CacheEntry, now: Double) -> String {
        if entry.mustRevalidate { return "revalidate" }
        guard let expires = entry.expires else { return "never" }
        return expires > now ? "in " + duration(expires - now) : "expired " + duration(now - expires) + " ago"
    }

    /// ISO 8601 UTC, e.g. 2026-11-29T16:30:00Z.
    static func timestamp(_ epoch: Double) -> String {
        let http = HTTPDate.format(epoch) // "Sun, 29 Nov 2026 16:30:00 GMT"
        let p = http.split(separator: " ")
        let months = ["Jan": "01", "Feb": "02", "Mar": "03", "Apr": "04", "May": "05", "Jun": "06",
                      "Jul": "07", "Aug": "08", "Sep": "09", "Oct": "10", "Nov": "11", "Dec": "12"]
        return "\(p[3])-\(months[String(p[2])] ?? "01")-\(p[1])T\(p[4])Z"
    }

    /// Columns padded to their widest cell; the last column is not padded.
    static func table(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        var widths = [Int](repeating: 0, count: first.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
