// Compiled into the imgfetch executable, and with the library's sources into the fuzz targets.
#if canImport(ImageFetch)
import ImageFetch
#endif

/// The per-line options of a list and how list text is split, unquoted and redacted.
extension ListParser {
    struct FieldProblem: Error { var message: String }

    /// The line's fields: split on blanks, except inside double quotes (`name="a b"`); an
    /// unterminated quote is an error. Quotes stay in the field (`unquote` removes them).
    /// Over UTF-8 bytes for a line that is ASCII without a LF (`asciiFieldsOf`), else by `Character`.
    static func fieldsOf(_ text: Substring) -> Result<[Substring], FieldProblem> {
        asciiFieldsOf(text) ?? fieldsByCharacter(text)
    }

    /// `fieldsByCharacter` over UTF-8 bytes, for text that is ASCII without a LF: there each
    /// `Character` is one byte (the only grapheme of two ASCII scalars is CR LF), so the fields are
    /// the same (ListFieldsTests and the `list` fuzz target compare the two), without the `Character`
    /// walk and its string comparisons (~19,000 of a list line's ~65,000 instructions; every shard of
    /// a fleet reads every line). Nil for other text.
    static func asciiFieldsOf(_ text: Substring) -> Result<[Substring], FieldProblem>? {
        typealias Found = (ranges: [Range<Int>], unterminated: Bool)
        let found: Found?? = text.utf8.withContiguousStorageIfAvailable { b -> Found? in
            guard !b.contains(where: { $0 >= 0x80 || $0 == 0x0A }) else { return nil }
            var ranges: [Range<Int>] = []
            var start = -1
            var inQuotes = false
            var escaped = false
            for i in 0..<b.count {
                let c = b[i]
                if inQuotes {
                    if escaped { escaped = false } else if c == 0x5C { escaped = true } else if c == 0x22 { inQuotes = false }
                } else if c == 0x20 || c == 0x09 || c == 0x0D {   // space, tab, CR
                    if start >= 0 { ranges.append(start..<i); start = -1 }
                } else {
                    if start < 0 { start = i }
                    if c == 0x22 { inQuotes = true }
                }
            }
            if start >= 0 { ranges.append(start..<b.count) }
            return (ranges, inQuotes)
        }
        guard let found = found ?? nil else { return nil }
        if found.unterminated { return .failure(FieldProblem(message: "unterminated \" in \(quoted(text))")) }
        let utf8 = text.utf8
        return .success(found.ranges.map { r in
            let lower = utf8.index(utf8.startIndex, offsetBy: r.lowerBound)
            return text[lower..<utf8.index(lower, offsetBy: r.count)]
        })
    }

    /// The fields by `Character`: the reference, and the path of text that is not plain ASCII.
    static func fieldsByCharacter(_ text: Substring) -> Result<[Substring], FieldProblem> {
        var fields: [Substring] = []
        var start: Substring.Index?
        var inQuotes = false
        var escaped = false
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if inQuotes {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inQuotes = false }
            } else if c == " " || c == "\t" || c == "\r" {
                if let s = start { fields.append(text[s..<i]); start = nil }
            } else {
                if start == nil { start = i }
                if c == "\"" { inQuotes = true }
            }
            i = text.index(after: i)
        }
        if inQuotes { return .failure(FieldProblem(message: "unterminated \" in \(quoted(text))")) }
        if let s = start { fields.append(text[s...]) }
        return .success(fields)
    }

    /// A value without its surrounding double quotes, `\"` and `\\` unescaped; as is when unquoted.
    static func unquote(_ value: Substring) -> String {
        guard value.count >= 2, value.first == "\"", value.last == "\"" else { return String(value) }
        var out = ""
        var escaped = false
        for c in value.dropFirst().dropLast() {
            if escaped { out.append(c); escaped = false } else if c == "\\" { escaped = true } else { out.append(c) }
        }
        return out
    }

    /// Applies `name=value` to `item`; a message (never showing a credential) when it is invalid.
    static func apply(_ name: String, _ value: String, to item: inout ListItem, currentDirectory: String?) -> String? {
        func plain(_ v: String) -> String? { HTTPHeaders.validValue(v) }
        do {
            switch name {
            case "low-data":
                guard item.lowDataSource == nil else { return "low-data= given twice" }
                item.lowDataSource = try Source(parsing: value, currentDirectory: currentDirectory)
            case "alt":
                item.alternatives.append(try Source(parsing: value, currentDirectory: currentDirectory))
            case "header":
                guard let header = NetworkOptions.Header(parsing: value) else {
                    return "invalid header= value: expected \"NAME: VALUE\" or \"NAME:\""
                }
                item.headers.append(header)
            case "user-agent":
                guard let v = plain(value) else { return "invalid user-agent= value: control characters" }
                item.userAgent = v
            case "referer":
                guard let v = plain(value) else { return "invalid referer= value: control characters" }
                item.referer = v
            case "cookie":
                guard value.contains("="), let v = plain(value) else { return "invalid cookie= value: expected NAME=VALUE[; NAME=VALUE]" }
                item.cookie = v
            case "user":
                guard let colon = value.firstIndex(of: ":"), colon != value.startIndex, let v = plain(value) else {
                    return "invalid user= value: expected USER:PASSWORD (nothing is prompted for)"
                }
                item.user = v
            case "name":
                item.name = value
            default:
                return "unknown option \(quoted(name + "=")): expected low-data=, alt=, header=, user-agent=, referer=, cookie=, user= or name="
            }
        } catch {
            if case .invalidSource(let text) = error { return FetchError.invalidSource(quoted(text, marks: false)).message }
            return error.message
        }
        return nil
    }

    /// `text` with what identifies a user replaced by `***`: a URL's password (`Source.redacted`),
    /// the values of `user=` and `cookie=`, and what follows `Authorization:`, `Cookie:` or
    /// `Proxy-Authorization:` up to a closing quote or the end. For every message quoting a list line.
    public static func redact(_ text: String) -> String {
        var out = Source.redacted(text)
        var bytes = Array(out.utf8)
        // ASCII lower-casing only, byte for byte: offsets in `lower` are offsets in `bytes` (full
        // Unicode lower-casing can change a text's length and would shift them).
        let lower = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        var ranges: [Range<Int>] = []
        func find(_ needle: String, from: Int) -> Int? {
            let n = Array(needle.utf8)
            guard n.count <= lower.count else { return nil }
            var i = from
            while i + n.count <= lower.count {
                if Array(lower[i..<(i + n.count)]) == n { return i }
                i += 1
            }
            return nil
        }
        for (needle, toQuoteOnly) in [("user=", false), ("cookie=", false), ("authorization:", true), ("cookie:", true)] {
            var from = 0
            while let at = find(needle, from: from) {
                var start = at + needle.utf8.count
                while start < bytes.count, bytes[start] == UInt8(ascii: " ") { start += 1 }
                let quoted = start < bytes.count && bytes[start] == UInt8(ascii: "\"")
                if quoted { start += 1 }
                var end = start
                // A quoted value ends at its closing quote; an unquoted one at a blank (a quote inside
                // it is part of the secret), a header's at the end of the text.
                while end < bytes.count {
                    let b = bytes[end]
                    if quoted || toQuoteOnly { if b == UInt8(ascii: "\"") { break } }
                    if !quoted && !toQuoteOnly && (b == UInt8(ascii: " ") || b == UInt8(ascii: "\t")) { break }
                    end += 1
                }
                if end > start { ranges.append(start..<end) }
                from = max(end, at + 1)
            }
        }
        var merged: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        for range in merged.reversed() { bytes.replaceSubrange(range, with: Array("***".utf8)) }
        out = String(decoding: bytes, as: UTF8.self)
        return out
    }
}
