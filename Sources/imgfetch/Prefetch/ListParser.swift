// Compiled into the imgfetch executable, and with the library's sources into the fuzz targets.
#if canImport(ImageFetch)
import ImageFetch
#endif

/// One line of a prefetch list: a source and its per-line options.
public struct ListItem: Sendable, Equatable {
    /// 1-based line number in the list.
    public var line: Int
    public var source: Source
    public var lowDataSource: Source?
    public var alternatives: [Source]
    /// Per-line request settings: `header=` (repeatable, added after the command line's),
    /// `user-agent=`, `referer=`, `cookie=`, `user=` (each replacing the command line's).
    public var headers: [NetworkOptions.Header] = []
    public var userAgent: String?
    public var referer: String?
    public var cookie: String?
    public var user: String?
    /// Per-line output file name (`name=`), for `prefetch --output-dir`; checked by the caller.
    public var name: String?

    public init(line: Int, source: Source, lowDataSource: Source? = nil, alternatives: [Source] = []) {
        self.line = line
        self.source = source
        self.lowDataSource = lowDataSource
        self.alternatives = alternatives
    }

    /// `base` with this line's settings applied.
    public func network(over base: NetworkOptions) -> NetworkOptions {
        var n = base
        n.headers += headers
        if let userAgent { n.userAgent = userAgent }
        if let referer { n.referer = referer }
        if let cookie { n.cookie = cookie }
        if let user { n.user = user }
        return n
    }
}

/// Parses prefetch list lines: `SOURCE [low-data=SOURCE] [alt=SOURCE]... [header=VALUE]...
/// [user-agent=VALUE] [referer=VALUE] [cookie=VALUE] [user=USER:PASS] [name=NAME]`; a value with
/// spaces is double-quoted (`header="Referer: https://a.example/"`, `\"` and `\\` inside); blank
/// lines and lines starting with `#` are skipped. Every text a message quotes is redacted (`redact`). A malformed line is an error naming the problem (the caller adds
/// LIST:LINE); the text it quotes is shortened and its control characters escaped.
public enum ListParser {
    public enum Line: Sendable, Equatable {
        case skip
        case item(ListItem)
        case malformed(line: Int, message: String)
    }

    /// The start of a line cut short: when a URL's authority begins in it but does not end, what
    /// follows `://` could be a password whose `@` lies beyond the cut (redaction cannot see it),
    /// so the excerpt stops at `://`.
    static func cutBeforeAuthority(_ text: String) -> String {
        guard let scheme = text.firstRange(of: "://") else { return text }
        if text[scheme.upperBound...].contains(where: { "/?#@ \t\"".contains($0) }) { return text }
        return String(text[..<scheme.upperBound])
    }

    /// Parses a line read by `ListReader`: a line longer than `ListLine.maxLength` or holding a NUL
    /// byte is malformed; other bytes are UTF-8 (invalid sequences become U+FFFD).
    public static func parse(_ line: ListLine, currentDirectory: String? = nil) -> Line {
        let text = String(decoding: line.bytes, as: UTF8.self)
        if line.isTooLong {
            if text.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("#") { return .skip }
            return .malformed(line: line.number, message: "line longer than \(ListLine.maxLength / 1024) KiB, skipped; it starts with \(quoted(cutBeforeAuthority(text), limit: 40))")
        }
        if line.bytes.contains(0) {
            return .malformed(line: line.number, message: "line holds a NUL byte: \(quoted(text, limit: 40))")
        }
        return parse(Substring(text), line: line.number, currentDirectory: currentDirectory)
    }

    public static func parse(_ text: Substring, line: Int, currentDirectory: String? = nil) -> Line {
        let fields: [Substring]
        switch fieldsOf(text) {
        case .success(let f): fields = f
        case .failure(let problem): return .malformed(line: line, message: problem.message)
        }
        guard let first = fields.first, !first.hasPrefix("#") else { return .skip }
        do {
            let source = try Source(parsing: String(first), currentDirectory: currentDirectory)
            var item = ListItem(line: line, source: source)
            for field in fields.dropFirst() {
                if field.hasPrefix("#") { break }
                guard let eq = field.firstIndex(of: "=") else {
                    return .malformed(line: line, message: unexpected(field, after: first, source: source, line: text))
                }
                let name = field[..<eq]
                let value = unquote(field[field.index(after: eq)...])
                if let problem = apply(String(name), value, to: &item, currentDirectory: currentDirectory) {
                    return .malformed(line: line, message: problem)
                }
            }
            return .item(item)
        } catch {
            if case .invalidSource(let text) = error {
                return .malformed(line: line, message: FetchError.invalidSource(quoted(text, marks: false)).message)
            }
            return .malformed(line: line, message: error.message)
        }
    }

    /// A word after the source that is not `NAME=VALUE`, worded for what the line likely is: a URL
    /// with a raw space (write `%20`), or words that are not a URL at all (`not a url at all` is
    /// not the file `not` with a field `a`).
    static func unexpected(_ field: Substring, after first: Substring, source: Source, line text: Substring) -> String {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).prefix { !$0.contains("=") && !$0.hasPrefix("#") }
        if case .http = source {
            return "unexpected \(quoted(field, limit: 40)) after the URL: a space in a URL is written %20 (\(quoted(words.joined(separator: "%20"), limit: 60)))"
        }
        if case .file = source, !first.contains("/") {
            return "\(quoted(words.joined(separator: " "), limit: 80)) is not a URL (a line is a URL or a file path, then NAME=VALUE fields)"
        }
        return "unexpected \(quoted(field)): expected low-data=SOURCE, alt=SOURCE or NAME=VALUE"
    }

    /// `text` for a message: redacted (`redact`), its first `limit` characters, control characters (C0, DEL, C1) escaped
    /// as `\xNN` / `\u{NN}`, in single quotes unless `marks` is false.
    public static func quoted(_ text: some StringProtocol, limit: Int = 80, marks: Bool = true) -> String {
        var out = ""
        var count = 0
        for scalar in redact(String(text)).unicodeScalars {
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
