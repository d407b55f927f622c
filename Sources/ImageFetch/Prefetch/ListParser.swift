/// One line of a prefetch list: a source and its per-line options.
public struct ListItem: Sendable, Equatable {
    /// 1-based line number in the list.
    public var line: Int
    public var source: Source
    public var lowDataSource: Source?
    public var alternatives: [Source]
}

/// Parses prefetch list lines: `SOURCE [low-data=SOURCE] [alt=SOURCE]...`; blank lines and lines
/// starting with `#` are skipped. A malformed line is an error naming the problem (the caller adds
/// LIST:LINE); the text it quotes is shortened and its control characters escaped.
public enum ListParser {
    public enum Line: Sendable, Equatable {
        case skip
        case item(ListItem)
        case malformed(line: Int, message: String)
    }

    /// Parses a line read by `ListReader`: a line longer than `ListLine.maxLength` or holding a NUL
    /// byte is malformed; other bytes are UTF-8 (invalid sequences become U+FFFD).
    public static func parse(_ line: ListLine, currentDirectory: String? = nil) -> Line {
        let text = String(decoding: line.bytes, as: UTF8.self)
        if line.isTooLong {
            if text.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("#") { return .skip }
            return .malformed(line: line.number, message: "line longer than \(ListLine.maxLength / 1024) KiB, skipped; it starts with \(quoted(text, limit: 40))")
        }
        if line.bytes.contains(0) {
            return .malformed(line: line.number, message: "line holds a NUL byte: \(quoted(text, limit: 40))")
        }
        return parse(Substring(text), line: line.number, currentDirectory: currentDirectory)
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
                    return .malformed(line: line, message: "unexpected \(quoted(field)): expected low-data=SOURCE or alt=SOURCE")
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
                    return .malformed(line: line, message: "unknown option \(quoted(name + "=")): expected low-data= or alt=")
                }
            }
            return .item(ListItem(line: line, source: source, lowDataSource: lowData, alternatives: alternatives))
        } catch {
            if case .invalidSource(let text) = error {
                return .malformed(line: line, message: FetchError.invalidSource(quoted(text, marks: false)).message)
            }
            return .malformed(line: line, message: error.message)
        }
    }

    /// `text` for a message: its first `limit` characters, control characters (C0, DEL, C1) escaped
    /// as `\xNN` / `\u{NN}`, in single quotes unless `marks` is false.
    public static func quoted(_ text: some StringProtocol, limit: Int = 80, marks: Bool = true) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit { out += "..."; break }
            count += 1
            switch scalar.value {
            case 0..<0x20, 0x7F: out += "\\x" + hex(scalar.value)
            case 0x80..<0xA0: out += "\\u{" + hex(scalar.value) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return marks ? "'" + out + "'" : out
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return digits.count < 2 ? "0" + digits : digits
    }
}
