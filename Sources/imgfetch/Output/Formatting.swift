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
        let s = seconds.isFinite ? min(abs(seconds), 1e12) : 1e12
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
    static func timestamp(_ epoch: Double) -> String { HTTPDate.iso8601(epoch) }

    /// Columns padded to their widest cell; the last column is not padded.
    static func table(_ rows: [[String]]) -> String {
        guard let first = rows.first else { return "" }
        var widths = [Int](repeating: 0, count: first.count)
        // Widths in Unicode scalars: O(1)-ish per cell, unlike Character counting (100,000 rows).
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.unicodeScalars.count) } }
        var out = ""
        for row in rows {
            for (i, cell) in row.enumerated() {
                out += cell
                if i < row.count - 1 { out += String(repeating: " ", count: widths[i] - cell.unicodeScalars.count + 2) }
            }
            out += "\n"
        }
        return out
    }
}
