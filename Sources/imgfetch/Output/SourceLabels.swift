/// Labels that tell the shown sources apart (`cache sheet`): each source's shortest path suffix
/// that no other shown source ends with (`0010/p010.jpg` beside `0210/p010.jpg`), reaching back to
/// the host (`a.example/p.jpg` beside `b.example/p.jpg`) only when the paths are the same; a data:
/// URL is its own text. Labels longer than `maxLength` characters are cut in the middle with an
/// ellipsis (the sheet cuts again, in the middle, one still wider than its picture).
enum SourceLabels {
    static let maxLength = 120

    /// A label for each distinct source of `sources`.
    static func labels(_ sources: [String]) -> [String: String] {
        let distinct = Array(Set(sources))
        let parts = distinct.map(components)
        var chosen = [Int?](repeating: nil, count: distinct.count)   // the suffix length settled on
        var length = 1
        while chosen.contains(nil) {
            var counts: [String: Int] = [:]
            for p in parts { counts[suffix(p, length), default: 0] += 1 }
            for i in distinct.indices where chosen[i] == nil {
                // Unique at this length, or nothing longer to show.
                if counts[suffix(parts[i], length)] == 1 || length >= parts[i].count { chosen[i] = length }
            }
            length += 1
        }
        var labels: [String: String] = [:]
        for i in distinct.indices { labels[distinct[i]] = suffix(parts[i], chosen[i] ?? parts[i].count) }
        // Two sources whose labels still read the same (a query holding a '/') show their whole text.
        var readers: [String: Int] = [:]
        for label in labels.values { readers[label, default: 0] += 1 }
        for (source, label) in labels where readers[label, default: 0] > 1 { labels[source] = source }
        return labels.mapValues { cut($0, to: maxLength) }
    }

    /// What a source is made of, outermost first: the host of a URL, then its path's components
    /// (a query and fragment stay on the last one); a data: URL is one part.
    static func components(_ source: String) -> [String] {
        let lower = source.prefix(8).lowercased()
        if lower.hasPrefix("data:") { return [source] }
        var rest = Substring(source)
        var host: Substring?
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            rest = rest.drop { $0 != ":" }.dropFirst(3)
            let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            host = rest[..<end]
            rest = rest[end...]
        } else if lower.hasPrefix("file://") {
            rest = rest.dropFirst(7)
        }
        // The query (and fragment) belongs to the last component, whatever '/' it holds.
        let queryStart = rest.firstIndex { $0 == "?" || $0 == "#" } ?? rest.endIndex
        var path = rest[..<queryStart].split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let query = rest[queryStart...]
        if !query.isEmpty {
            if path.isEmpty { path = [String(query)] } else { path[path.count - 1] += query }
        }
        let parts = (host.map { [String($0)] } ?? []) + (path.isEmpty && host == nil ? [source] : path)
        // At most `maxParts`, the outermost joined into one: the search below is bounded by it.
        guard parts.count > maxParts else { return parts }
        return [parts.dropLast(maxParts - 1).joined(separator: "/")] + parts.suffix(maxParts - 1)
    }

    static let maxParts = 16

    static func suffix(_ parts: [String], _ length: Int) -> String {
        parts.suffix(length).joined(separator: "/")
    }

    /// `text` at most `limit` characters: the middle replaced by an ellipsis (both ends kept, where
    /// sources differ: the folder a unique suffix starts with, the file name it ends with).
    static func cut(_ text: String, to limit: Int) -> String {
        guard text.count > limit, limit >= 3 else { return text }
        let head = (limit - 1) / 2
        return String(text.prefix(head)) + "…" + String(text.suffix(limit - 1 - head))
    }
}
