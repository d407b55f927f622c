/// The `Cache-Control` directives of a response: every field line combined, in order (RFC 9110 §5.3),
/// split on commas outside quoted strings, names compared without regard to case.
///
/// A directive's value is its token, or the content of its quoted string. A directive written with
/// white space around `=` (`max-age =60`, `max-age= 60`) is kept with an invalid value, so that a
/// malformed freshness directive makes the response stale rather than being ignored.
public struct CacheControl: Sendable, Equatable {
    public struct Directive: Sendable, Equatable {
        /// Lower-cased.
        public var name: String
        public var value: String?
        /// False when the syntax around the value was broken (white space around `=`, an open quote).
        public var wellFormed: Bool
    }

    public var directives: [Directive]

    public init(headers: HTTPHeaders) {
        self.init(lines: headers.values("cache-control"))
    }

    /// At most 64 directives are read (a hostile header cannot make this slow).
    public init(lines: [String]) {
        var result: [Directive] = []
        for line in lines {
            for element in CacheControl.split(line) where result.count < 64 {
                if let directive = CacheControl.directive(element) { result.append(directive) }
            }
        }
        directives = result
    }

    /// The first occurrence of `name` (RFC 9111 §4.2.1: with duplicates, the first is used).
    public func first(_ name: String) -> Directive? { directives.first { $0.name == name } }

    public func has(_ name: String) -> Bool { directives.contains { $0.name == name } }

    /// `name`'s delta-seconds (RFC 9111 §1.2.2): digits only, capped at 2^31 (a larger value means "a very
    /// long time"). nil when absent; 0 when present but invalid (negative, a fraction, quoted badly), so
    /// that an invalid freshness directive makes the response stale, as §4.2.1 encourages.
    public func seconds(_ name: String) -> Double? {
        guard let d = first(name) else { return nil }
        guard d.wellFormed, let v = d.value else { return 0 }
        return CacheControl.deltaSeconds(v) ?? 0
    }

    /// Digits only, capped at 2^31; nil when not delta-seconds (`HeaderNumber.deltaSeconds`).
    static func deltaSeconds<S: StringProtocol>(_ text: S) -> Double? { HeaderNumber.deltaSeconds(text) }

    /// Elements of a comma-separated list; commas inside quoted strings do not split.
    static func split(_ line: String) -> [Substring] {
        var parts: [Substring] = []
        var start = line.startIndex
        var quoted = false, escaped = false
        var i = line.startIndex
        while i < line.endIndex {
            let c = line[i]
            if escaped { escaped = false } else if quoted && c == "\\" { escaped = true } else if c == "\"" {
                quoted.toggle()
            } else if c == "," && !quoted {
                parts.append(line[start..<i])
                start = line.index(after: i)
            }
            i = line.index(after: i)
        }
        parts.append(line[start...])
        return parts
    }

    static func directive(_ element: Substring) -> Directive? {
        let trimmedElement = element.trimmed()
        guard !trimmedElement.isEmpty else { return nil }
        guard let eq = trimmedElement.firstIndex(of: "=") else {
            return Directive(name: trimmedElement.lowercased(), value: nil, wellFormed: true)
        }
        let rawName = trimmedElement[..<eq]
        let rawValue = trimmedElement[trimmedElement.index(after: eq)...]
        let name = rawName.trimmed().lowercased()
        guard !name.isEmpty else { return nil }
        var wellFormed = rawName.last != " " && rawName.last != "\t" && rawValue.first != " " && rawValue.first != "\t"
        var value = String(rawValue)
        if rawValue.first == "\"" {
            // A quoted string: its content, with quoted pairs unescaped.
            var out = ""
            var escaped = false, closed = false
            for c in rawValue.dropFirst() {
                if closed { wellFormed = false; break }
                if escaped { out.append(c); escaped = false } else if c == "\\" { escaped = true } else if c == "\"" {
                    closed = true
                } else { out.append(c) }
            }
            if !closed { wellFormed = false }
            value = out
        }
        return Directive(name: name, value: value, wellFormed: wellFormed)
    }
}
