/// Matching a URL's path against the rules (RFC 9309 §2.2.2-2.2.3): the rule whose pattern matches
/// the most octets decides; on a tie, `allow` wins; no matching rule allows; `/robots.txt` is
/// always allowed. `*` matches any sequence of octets, a `$` at the end anchors the pattern at the
/// end of the path. Patterns and paths are compared percent-encoded (`normalise`): `ツ` matches
/// `%E3%83%84`, and `%62` never matches `b`.
extension RobotsTxt {
    /// The decision for `path` (the URL's path and query, starting with `/`): allowed, or the
    /// disallow rule that decided it.
    public func verdict(path: String) -> Rule? {
        let target = Array(RobotsTxt.normalise(path.isEmpty ? "/" : path).utf8)
        if target.elementsEqual("/robots.txt".utf8) { return nil }
        var best: Rule?
        var bestLength = -1
        for rule in rules {
            let pattern = Array(rule.pattern.utf8)
            // The length of the pattern as written (RFC 9309: "the most octets"), as Google counts it.
            guard pattern.count >= bestLength, RobotsTxt.matches(pattern, target) else { continue }
            if pattern.count > bestLength || (rule.allow && best?.allow == false) {
                best = rule
                bestLength = pattern.count
            }
        }
        return best.flatMap { $0.allow ? nil : $0 }
    }

    /// The `content-usage` preference that applies to `path` (the longest matching path pattern;
    /// a line without a path covers every path with the length of `/`), or nil.
    public func usagePreference(path: String) -> String? {
        let target = Array(RobotsTxt.normalise(path.isEmpty ? "/" : path).utf8)
        var best: UsageLine?
        var bestLength = -1
        for line in usage {
            let pattern = Array((line.pattern ?? "/").utf8)
            guard pattern.count > bestLength, RobotsTxt.matches(pattern, target) else { continue }
            best = line
            bestLength = pattern.count
        }
        return best?.preference
    }

    /// Whether `pattern` (with `*` and a final `$`) matches a prefix of `path`, or the whole of
    /// it when anchored. Greedy with one backtrack point per `*`: O(pattern x path) at worst.
    static func matches(_ pattern: [UInt8], _ path: [UInt8]) -> Bool {
        var p = pattern[...]
        var anchored = false
        if p.last == UInt8(ascii: "$") {
            anchored = true
            p = p.dropLast()
        }
        let star = UInt8(ascii: "*")
        var pi = p.startIndex, ti = 0
        var starAt: Int?, starText = 0
        while true {
            if pi == p.endIndex {
                if !anchored || ti == path.count { return true }
            } else if p[pi] == star {
                starAt = pi
                starText = ti
                pi += 1
                continue
            } else if ti < path.count, p[pi] == path[ti] {
                pi += 1
                ti += 1
                continue
            }
            // Mismatch (or an anchored end not reached): let the last `*` take one more octet.
            guard let s = starAt, starText < path.count else { return false }
            starText += 1
            ti = starText
            pi = s + 1
        }
    }

    /// `text` with every octet outside printable US-ASCII percent-encoded and every `%XX` in upper
    /// case (RFC 9309 §2.2.2); at most 4096 octets are kept.
    public static func normalise(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        let bytes = Array(text.utf8.prefix(4096))
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%"), i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) {
                out += [b, upper(bytes[i + 1]), upper(bytes[i + 2])]
                i += 3
                continue
            }
            if b <= 32 || b >= 127 {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]]
            } else {
                out.append(b)
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isHex(_ c: UInt8) -> Bool { (48...57).contains(c) || (65...70).contains(c) || (97...102).contains(c) }
    private static func upper(_ c: UInt8) -> UInt8 { (97...102).contains(c) ? c - 32 : c }
}
