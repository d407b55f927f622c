/// An origin's `/.well-known/tdmrep.json` (W3C TDMRep, Community Group final report §3.2): an
/// array of rules `{"location": PATTERN, "tdm-reservation": 0|1, "tdm-policy": URL}`. A request's
/// path takes the rule of the longest `location` that matches it (the robots.txt pattern syntax:
/// `*`, a final `$`). A file that is not such an array is `nil` (it expresses nothing); a rule
/// without a string `location` or with a reservation other than 0 or 1 is dropped.
///
/// Hostile bytes: at most 64 KiB are read, at most 1000 rules, nesting at most 8 deep; the reader
/// keeps strings and numbers only and skips every other value.
public struct TDMRepFile: Sendable, Equatable {
    public struct Rule: Sendable, Equatable {
        public var location: String
        public var reserved: Bool
    }

    public var rules: [Rule] = []
    static let maxBytes = 64 * 1024
    static let maxRules = 1000

    public init?(_ bytes: [UInt8]) {
        guard bytes.count <= TDMRepFile.maxBytes else { return nil }
        var reader = JSONReader(bytes: bytes)
        guard let rules = reader.rules(), reader.atEnd else { return nil }
        self.rules = rules
    }

    /// The rule for `path`, or nil when none matches.
    public func rule(path: String) -> Rule? {
        let target = Array(RobotsTxt.normalise(path).utf8)
        var best: Rule?
        var bestLength = -1
        for rule in rules {
            let pattern = Array(RobotsTxt.normalise(rule.location).utf8)
            guard pattern.count > bestLength, RobotsTxt.matches(pattern, target) else { continue }
            best = rule
            bestLength = pattern.count
        }
        return best
    }

    /// A JSON reader of just what the file needs: an array of objects whose members are strings,
    /// numbers or other values skipped.
    struct JSONReader {
        let bytes: [UInt8]
        var i = 0

        var atEnd: Bool {
            mutating get {
                space()
                return i == bytes.count
            }
        }

        mutating func space() { while i < bytes.count, [9, 10, 13, 32].contains(bytes[i]) { i += 1 } }

        mutating func take(_ c: UInt8) -> Bool {
            space()
            guard i < bytes.count, bytes[i] == c else { return false }
            i += 1
            return true
        }

        mutating func rules() -> [Rule]? {
            if i == 0, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
            guard take(UInt8(ascii: "[")) else { return nil }
            var rules: [Rule] = []
            if take(UInt8(ascii: "]")) { return rules }
            repeat {
                guard take(UInt8(ascii: "{")) else { return nil }
                var location: String?
                var reservation: String?
                if !take(UInt8(ascii: "}")) {
                    repeat {
                        guard let key = string(), take(UInt8(ascii: ":")) else { return nil }
                        space()
                        if i < bytes.count, bytes[i] == UInt8(ascii: "\"") {
                            guard let value = string() else { return nil }
                            if key == "location" { location = value }
                        } else if i < bytes.count, bytes[i] == UInt8(ascii: "-") || (48...57).contains(bytes[i]) {
                            let start = i
                            while i < bytes.count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: ".") || (48...57).contains(bytes[i])
                                || bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") || bytes[i] == UInt8(ascii: "+") { i += 1 }
                            if key == "tdm-reservation" { reservation = String(decoding: bytes[start..<i], as: UTF8.self) }
                        } else {
                            guard skipValue(depth: 0) else { return nil }
                        }
                    } while take(UInt8(ascii: ","))
                    guard take(UInt8(ascii: "}")) else { return nil }
                }
                if let location, reservation == "0" || reservation == "1", rules.count < TDMRepFile.maxRules {
                    rules.append(Rule(location: location, reserved: reservation == "1"))
                }
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) ? rules : nil
        }

        /// A string (escapes kept as written but `\"` and `\\`), at most 4096 bytes; nil if malformed.
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var out: [UInt8] = []
            while i < bytes.count {
                let c = bytes[i]
                i += 1
                if c == UInt8(ascii: "\"") { return out.count <= 4096 ? String(decoding: out, as: UTF8.self) : nil }
                if c < 32 { return nil }
                if c == UInt8(ascii: "\\") {
                    guard i < bytes.count else { return nil }
                    let e = bytes[i]
                    i += 1
                    out.append(e == UInt8(ascii: "/") || e == UInt8(ascii: "\"") || e == UInt8(ascii: "\\") ? e : UInt8(ascii: "?"))
                    if e == UInt8(ascii: "u") { i = min(i + 4, bytes.count) }
                } else {
                    out.append(c)
                }
            }
            return nil
        }

        /// Skips `true`, `false`, `null`, an array or an object (at most 8 deep).
        mutating func skipValue(depth: Int) -> Bool {
            space()
            guard depth < 8, i < bytes.count else { return false }
            for word in ["true", "false", "null"] where bytes[i...].starts(with: word.utf8) {
                i += word.utf8.count
                return true
            }
            if bytes[i] == UInt8(ascii: "\"") { return string() != nil }
            if bytes[i] == UInt8(ascii: "-") || (48...57).contains(bytes[i]) {
                while i < bytes.count, !([44, 93, 125, 9, 10, 13, 32] as [UInt8]).contains(bytes[i]) { i += 1 }
                return true
            }
            let close: UInt8
            if take(UInt8(ascii: "[")) { close = UInt8(ascii: "]") } else if take(UInt8(ascii: "{")) { close = UInt8(ascii: "}") } else { return false }
            if take(close) { return true }
            repeat {
                if close == UInt8(ascii: "}") { guard string() != nil, take(UInt8(ascii: ":")) else { return false } }
                guard skipValue(depth: depth + 1) else { return false }
            } while take(UInt8(ascii: ","))
            return take(close)
        }
    }
}
