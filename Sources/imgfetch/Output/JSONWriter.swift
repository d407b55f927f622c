/// A JSON object written in insertion order (scripts and people read records left to right).
struct JSONObject {
    private var fields: [String] = []

    mutating func add(_ key: String, _ value: String?) { fields.append(Self.quote(key) + ":" + (value.map(Self.quote) ?? "null")) }
    mutating func add(_ key: String, _ value: Int?) { fields.append(Self.quote(key) + ":" + (value.map { String($0) } ?? "null")) }
    mutating func add(_ key: String, _ value: Int64?) { fields.append(Self.quote(key) + ":" + (value.map { String($0) } ?? "null")) }
    mutating func add(_ key: String, _ value: Double?) { fields.append(Self.quote(key) + ":" + (value.map(Self.number) ?? "null")) }
    mutating func add(_ key: String, _ value: Bool) { fields.append(Self.quote(key) + ":" + (value ? "true" : "false")) }
    mutating func add(_ key: String, object: JSONObject) { fields.append(Self.quote(key) + ":" + object.text) }
    mutating func add(_ key: String, objects: [JSONObject]) {
        fields.append(Self.quote(key) + ":[" + objects.map(\.text).joined(separator: ",") + "]")
    }
    mutating func add(_ key: String, strings: [String]) {
        fields.append(Self.quote(key) + ":[" + strings.map(Self.quote).joined(separator: ",") + "]")
    }

    var text: String { "{" + fields.joined(separator: ",") + "}" }

    static func number(_ v: Double) -> String {
        if v.isNaN || v.isInfinite { return "null" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }

    static func quote(_ s: String) -> String {
        // Most values (keys, paths, URLs) are printable ASCII that needs no escaping: one pass decides.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            return "\"" + s + "\""
        }
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20 || Self.escapedAsCode(c):
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Printable in JSON but not safe to show raw in a terminal or a script's line-based reading:
    /// DEL and the C1 controls (U+007F-U+009F), the bidirectional overrides and isolates
    /// (U+202A-U+202E, U+2066-U+2069) and the line/paragraph separators (U+2028, U+2029).
    static func escapedAsCode(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x7F...0x9F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
