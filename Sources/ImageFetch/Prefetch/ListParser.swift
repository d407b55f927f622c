/// One line of a prefetch list: a source and its per-line options.
public struct ListItem: Sendable, Equatable {
    /// 1-based line number in the list.
    public var line: Int
    public var source: Source
    public var lowDataSource: Source?
    public var alternatives: [Source]
}

/// Parses prefetch list lines: `SOURCE [low-data=SOURCE] [alt=SOURCE]...`; blank lines and lines
/// starting with `#` are skipped. A malformed line is an error naming the problem (the caller adds LIST:LINE).
public enum ListParser {
    public enum Line: Sendable, Equatable {
        case skip
        case item(ListItem)
        case malformed(line: Int, message: String)
    }

    public static func parse(_ text: Substring, line: Int, currentDirectory: String? = nil) -> Line {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        guard let first = fields.first, !first.hasPrefix("#") else { return .skip }
        do {
            let source = try Source(parsing: String(first), currentDirectory: currentDirectory)
            var lowData: Source?
            var alternatives: [Source] = []
            for field in fields.dropFirst() {
                if field.hasPrefix("#") { break }
                guard let eq = field.firstIndex(of: "=") else {
                    return .malformed(line: line, message: "unexpected '\(field)': expected low-data=SOURCE or alt=SOURCE")
                }
                let name = field[..<eq]
                let value = String(field[field.index(after: eq)...])
                switch name {
                case "low-data":
                    guard lowData == nil else { return .malformed(line: line, message: "low-data= given twice") }
                    lowData = try Source(parsing: value, currentDirectory: currentDirectory)
                case "alt":
                    alternatives.append(try Source(parsing: value, currentDirectory: currentDirectory))
                default:
                    return .malformed(line: line, message: "unknown option '\(name)=': expected low-data= or alt=")
                }
            }
            return .item(ListItem(line: line, source: source, lowDataSource: lowData, alternatives: alternatives))
        } catch {
            return .malformed(line: line, message: error.message)
        }
    }
}
