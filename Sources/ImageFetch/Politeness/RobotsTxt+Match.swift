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

    /// Whether `pattern` (with `*` and a final `$`) matches a prefix of `path`, or the whole of it
    /// when anchored. The pieces between stars are found left to right, each at its first place
    /// after the one before (`*` alone makes that right), by Knuth-Morris-Pratt: O(pattern + path)
    /// whatever a hostile file's stars, so a group of 512 KiB of rules costs at most a few passes
    /// over the path per rule.
    static func matches(_ pattern: [UInt8], _ path: [UInt8]) -> Bool {
        var p = pattern[...]
        let anchored = p.last == UInt8(ascii: "$")
        if anchored { p = p.dropLast() }
        let pieces = p.split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false)
        let first = pieces[0]
        guard path.starts(with: first) else { return false }
        if pieces.count == 1 { return !anchored || path.count == first.count }
        var position = first.count
        for (index, piece) in pieces.enumerated().dropFirst() where !piece.isEmpty {
            if anchored && index == pieces.count - 1 {
                // The last piece of an anchored pattern ends the path, after what came before.
                return path.count - piece.count >= position && path[(path.count - piece.count)...].elementsEqual(piece)
            }
            guard let found = firstIndex(of: piece, in: path, from: position) else { return false }
            position = found + piece.count
        }
        return true
    }

    /// Where `needle` first occurs in `haystack` at or after `start` (Knuth-Morris-Pratt), or nil.
    static func firstIndex(of needle: ArraySlice<UInt8>, in haystack: [UInt8], from start: Int) -> Int? {
        let n = Array(needle)
        var failure = [Int](repeating: 0, count: n.count)
        var k = 0
        for i in 1..<max(n.count, 1) {
            while k > 0 && n[i] != n[k] { k = failure[k - 1] }
            if n[i] == n[k] { k += 1 }
            failure[i] = k
        }
        var matched = 0
        var i = start
        while i < haystack.count {
            while matched > 0 && haystack[i] != n[matched] { matched = failure[matched - 1] }
            if haystack[i] == n[matched] { matched += 1 }
            if matched == n.count { return i - n.count + 1 }
            i += 1
        }
        return nil
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
