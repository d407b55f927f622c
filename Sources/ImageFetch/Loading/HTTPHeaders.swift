/// Response headers of the final response (after redirects), in order.
public struct HTTPHeaders: Sendable {
    public var all: [(name: String, value: String)]

    public init(_ all: [(name: String, value: String)] = []) {
        self.all = all
    }

    /// Parses `"Name: value"` lines joined by `"\n"`; lines without a colon are skipped.
    public init(parsing text: String) {
        var all: [(name: String, value: String)] = []
        // "\r\n" is a single Character in Swift: split on both.
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = HTTPHeaders.trim(line[..<colon])
            guard !name.isEmpty else { continue }
            let value = HTTPHeaders.trim(line[line.index(after: colon)...])
            all.append((name: String(name), value: String(value)))
        }
        self.all = all
    }

    /// The value of the header `name` (case-insensitive); the last one wins.
    public subscript(_ name: String) -> String? {
        let wanted = name.lowercased()
        for header in all.reversed() where header.name.lowercased() == wanted {
            return header.value
        }
        return nil
    }

    /// The value of a validator header (`etag`, `last-modified`) when it may be sent back in a
    /// request header; nil when absent or not a valid field value.
    public func validator(_ name: String) -> String? { self[name].flatMap(HTTPHeaders.validValue) }

    /// `value` when it is a valid header field value (RFC 9110: no CR, LF, NUL or other control
    /// character but tab), else nil: such a value could end a header line and start another.
    public static func validValue(_ value: String) -> String? {
        value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) ? nil : value
    }

    private static func trim(_ s: Substring) -> Substring {
        var s = s
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return s
    }
}
