/// One JSONL row: a JSON object whose members are read as text cells. A string is its value, a
/// number its text as written, `true`/`false` those words; `null`, an array or an object is no
/// value (nil). Anything that is not one whole JSON object is an error naming the offset.
struct JSONLineObject {
    private let bytes: [UInt8]
    private var index = 0
    /// Arrays and objects nested deeper than this are refused (a row is at most 64 KiB anyway).
    private static let maxDepth = 64

    static func parse(_ bytes: [UInt8]) -> Result<[(name: String, value: String?)], TableRowError> {
        var parser = JSONLineObject(bytes: bytes)
        do { return .success(try parser.object()) } catch { return .failure(error) }
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func object() throws(TableRowError) -> [(name: String, value: String?)] {
        skipSpace()
        try expect(123)   // {
        var members: [(name: String, value: String?)] = []
        skipSpace()
        if peek() == 125 { index += 1 } else {
            while true {
                skipSpace()
                let name = try string()
                skipSpace()
                try expect(58)   // :
                skipSpace()
                members.append((name: name, value: try scalar()))
                skipSpace()
                if peek() == 44 { index += 1; continue }
                try expect(125)
                break
            }
        }
        skipSpace()
        guard index == bytes.count else { throw fail("text after the object") }
        return members
    }

    /// A member's value as text; nil for null, an array or an object (skipped whole).
    private mutating func scalar() throws(TableRowError) -> String? {
        switch peek() {
        case 34: return try string()
        case 123, 91: try skipContainer(); return nil
        default:
            let start = index
            while let byte = peek(), byte != 44, byte != 125, byte != 93, !Self.isSpace(byte) { index += 1 }
            let word = String(decoding: bytes[start..<index], as: UTF8.self)
            if word == "null" { return nil }
            if word == "true" || word == "false" || Self.isNumber(word) { return word }
            throw fail("a value that is not JSON")
        }
    }

    /// Skips a nested array or object, strings included, bounded in depth.
    private mutating func skipContainer() throws(TableRowError) {
        var depth = 0
        while let byte = peek() {
            if byte == 34 { _ = try string(); continue }
            index += 1
            if byte == 123 || byte == 91 {
                depth += 1
                if depth > Self.maxDepth { throw fail("values nested too deep") }
            } else if byte == 125 || byte == 93 {
                depth -= 1
                if depth == 0 { return }
            }
        }
        throw fail("an array or object not closed")
    }

    private mutating func string() throws(TableRowError) -> String {
        try expect(34)
        var out: [UInt8] = []
        while let byte = peek() {
            index += 1
            if byte == 34 { return String(decoding: out, as: UTF8.self) }
            if byte < 32 { throw fail("a control character in a string") }
            if byte != 92 { out.append(byte); continue }
            guard let escaped = peek() else { break }
            index += 1
            switch escaped {
            case 34, 92, 47: out.append(escaped)
            case 98: out.append(8)
            case 102: out.append(12)
            case 110: out.append(10)
            case 114: out.append(13)
            case 116: out.append(9)
            case 117: out += try unicodeEscape()
            default: throw fail("an unknown escape in a string")
            }
        }
        throw fail("a string not closed")
    }

    /// `\uXXXX` (the `\u` read), a surrogate pair taken whole; a lone surrogate is U+FFFD.
    private mutating func unicodeEscape() throws(TableRowError) -> [UInt8] {
        var value = try hex4()
        if (0xD800..<0xDC00).contains(value), peek() == 92, index + 1 < bytes.count, bytes[index + 1] == 117 {
            index += 2
            let low = try hex4()
            value = (0xDC00..<0xE000).contains(low) ? 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00) : 0xFFFD
        }
        let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func hex4() throws(TableRowError) -> UInt32 {
        guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw fail("a bad \\u escape")
        }
        index += 4
        return value
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func expect(_ byte: UInt8) throws(TableRowError) {
        guard peek() == byte else { throw fail("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    private mutating func skipSpace() { while let byte = peek(), Self.isSpace(byte) { index += 1 } }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 13 || byte == 10 }

    /// JSON's number syntax, roughly: a sign, digits, a fraction and an exponent.
    private static func isNumber(_ word: String) -> Bool {
        guard let first = word.utf8.first, first == 45 || (first >= 48 && first <= 57) else { return false }
        return Double(word) != nil
    }

    private func fail(_ what: String) -> TableRowError { TableRowError("not a JSON object: \(what) at byte \(index + 1)") }
}
