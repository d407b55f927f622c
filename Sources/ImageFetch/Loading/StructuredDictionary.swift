/// An RFC 9651 (Structured Field Values) Dictionary, as `Repr-Digest` and `Content-Digest` (RFC 9530)
/// are: `key=value` members separated by commas. Parsed by the RFC's algorithm (§4.2): any syntax
/// error makes the whole field unparsed (nil), as the RFC requires; a later member of the same key
/// overrides an earlier one. Values are kept only as far as a caller needs them: a byte sequence's
/// bytes, a token's text; every other bare item (integer, decimal, string, token, boolean, date, display string)
/// and inner list is checked and kept as `.other`. Parameters are checked and dropped.
///
/// Bounded: a field of more than 16 KiB, or with more than 64 members, is not parsed (a digest
/// field holds a few; the headers were bounded by the transfer already).
struct StructuredDictionary: Equatable {
    enum Value: Equatable {
        case bytes([UInt8])
        /// A token (`y`, `n`: the AI-preferences vocabulary's values).
        case token(String)
        case other
    }

    private(set) var members: [(key: String, value: Value)] = []

    static func == (a: StructuredDictionary, b: StructuredDictionary) -> Bool {
        a.members.map(\.key) == b.members.map(\.key) && a.members.map(\.value) == b.members.map(\.value)
    }

    subscript(key: String) -> Value? { members.last { $0.key == key }?.value }

    init?(_ field: String) {
        let input = Array(field.utf8)
        guard input.count <= 16 * 1024 else { return nil }
        var p = Parser(input: input)
        p.skip(spaces: true)
        guard !p.atEnd else { return }   // an empty field is an empty dictionary
        while true {
            guard let key = p.key() else { return nil }
            let value: Value
            if p.take(UInt8(ascii: "=")) {
                guard let v = p.itemOrInnerList() else { return nil }
                value = v
            } else {
                value = .other   // a bare key is Boolean true
                guard p.parameters() else { return nil }
            }
            members.removeAll { $0.key == key }
            members.append((key, value))
            guard members.count <= 64 else { return nil }
            p.skip(spaces: false, tabs: true)
            if p.atEnd { return }
            guard p.take(UInt8(ascii: ",")) else { return nil }
            p.skip(spaces: false, tabs: true)
            if p.atEnd { return nil }   // a trailing comma
        }
    }

    private struct Parser {
        let input: [UInt8]
        var i = 0

        var atEnd: Bool { i >= input.count }
        var peek: UInt8? { i < input.count ? input[i] : nil }

        mutating func take(_ c: UInt8) -> Bool {
            guard peek == c else { return false }
            i += 1
            return true
        }

        mutating func skip(spaces: Bool, tabs: Bool = false) {
            while let c = peek, c == 0x20 || (tabs && c == 0x09) { i += 1 }
        }

        static func isLcalpha(_ c: UInt8) -> Bool { c >= 0x61 && c <= 0x7a }
        static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        static func isAlpha(_ c: UInt8) -> Bool { isLcalpha(c) || (c >= 0x41 && c <= 0x5a) }
        /// tchar (RFC 9110 §5.6.2).
        static func isTchar(_ c: UInt8) -> Bool {
            isAlpha(c) || isDigit(c) || Array("!#$%&'*+-.^_`|~".utf8).contains(c)
        }

        /// key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )
        mutating func key() -> String? {
            guard let first = peek, Parser.isLcalpha(first) || first == UInt8(ascii: "*") else { return nil }
            let start = i
            while let c = peek, Parser.isLcalpha(c) || Parser.isDigit(c) || c == 0x5f || c == 0x2d || c == 0x2e || c == 0x2a { i += 1 }
            return String(decoding: input[start..<i], as: UTF8.self)
        }

        mutating func itemOrInnerList() -> Value? {
            if peek == UInt8(ascii: "(") {
                i += 1
                while true {
                    skip(spaces: true)
                    if take(UInt8(ascii: ")")) { return parameters() ? .other : nil }
                    guard bareItem() != nil, parameters() else { return nil }
                    guard peek == 0x20 || peek == UInt8(ascii: ")") else { return nil }
                }
            }
            guard let value = bareItem(), parameters() else { return nil }
            return value
        }

        /// Parameters: `;key[=bare-item]`, checked and dropped.
        mutating func parameters() -> Bool {
            while take(UInt8(ascii: ";")) {
                skip(spaces: true)
                guard key() != nil else { return false }
                if take(UInt8(ascii: "=")), bareItem() == nil { return false }
            }
            return true
        }

        mutating func bareItem() -> Value? {
            guard let c = peek else { return nil }
            switch c {
            case UInt8(ascii: "-"), 0x30...0x39: return number() ? .other : nil
            case UInt8(ascii: "\""): return string() ? .other : nil
            case UInt8(ascii: ":"): return byteSequence().map { .bytes($0) }
            case UInt8(ascii: "?"):
                i += 1
                guard let b = peek, b == 0x30 || b == 0x31 else { return nil }
                i += 1
                return .other
            case UInt8(ascii: "@"):
                i += 1
                return number() ? .other : nil
            case UInt8(ascii: "%"): return displayString() ? .other : nil
            default:
                guard Parser.isAlpha(c) || c == UInt8(ascii: "*") else { return nil }
                let start = i
                while let t = peek, Parser.isTchar(t) || t == 0x3a || t == 0x2f { i += 1 }
                return .token(String(decoding: input[start..<i], as: UTF8.self))
            }
        }

        /// An integer (at most 15 digits) or a decimal (at most 12 integer and 3 fraction digits).
        mutating func number() -> Bool {
            _ = take(UInt8(ascii: "-"))
            var digits = 0, fraction = -1
            while let c = peek {
                if Parser.isDigit(c) {
                    digits += 1
                    if fraction >= 0 { fraction += 1 }
                } else if c == UInt8(ascii: "."), fraction < 0 {
                    guard digits > 0, digits <= 12 else { return false }
                    fraction = 0
                } else { break }
                i += 1
            }
            guard digits > 0 else { return false }
            if fraction < 0 { return digits <= 15 }
            return fraction >= 1 && fraction <= 3
        }

        mutating func string() -> Bool {
            i += 1
            while let c = peek {
                i += 1
                if c == UInt8(ascii: "\\") {
                    guard let e = peek, e == UInt8(ascii: "\"") || e == UInt8(ascii: "\\") else { return false }
                    i += 1
                } else if c == UInt8(ascii: "\"") {
                    return true
                } else if c < 0x20 || c > 0x7e {
                    return false
                }
            }
            return false
        }

        mutating func displayString() -> Bool {
            i += 1
            guard take(UInt8(ascii: "\"")) else { return false }
            while let c = peek {
                i += 1
                if c == UInt8(ascii: "\"") { return true }
                guard c >= 0x20, c <= 0x7e else { return false }
            }
            return false
        }

        /// `:base64:` (RFC 4648 §4, padding optional): its bytes.
        mutating func byteSequence() -> [UInt8]? {
            i += 1
            let start = i
            while let c = peek, c != UInt8(ascii: ":") {
                guard Parser.isAlpha(c) || Parser.isDigit(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "/") || c == UInt8(ascii: "=") else { return nil }
                i += 1
            }
            guard take(UInt8(ascii: ":")) else { return nil }
            let text = input[start..<(i - 1)]
            guard Base64.decodedCount(text) != nil else { return nil }
            var bytes: [UInt8] = []
            Base64.decode(text, chunk: 4096) { bytes += $0 }
            return bytes
        }
    }
}
