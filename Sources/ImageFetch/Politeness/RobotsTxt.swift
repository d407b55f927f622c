/// A robots.txt file (RFC 9309) as one crawler reads it: the rules of the group of its product
/// token (`imgfetch` by default: the User-Agent's first word), else of the `*` group, else none;
/// groups that name the same agent are merged (§2.2.1). Besides `allow` and `disallow`, the group's
/// `crawl-delay` and its `content-usage` lines (draft-ietf-aipref-attach-05 §5: an optional path
/// then a usage preference) are kept. Everything else (sitemaps, unknown keys) is ignored.
///
/// Hostile bytes: at most `parseLimit` bytes are read (the RFC asks for at least 500 KiB), a line
/// of more than `lineLimit` bytes is skipped, at most `ruleLimit` rules are kept, and no byte
/// sequence makes a value that matching cannot bound (`RobotsTxt+Match`).
public struct RobotsTxt: Sendable, Equatable {
    /// One `allow` or `disallow` line of the chosen group.
    public struct Rule: Sendable, Equatable {
        public var allow: Bool
        /// The path pattern, percent-encoding normalised (`RobotsTxt.normalise`).
        public var pattern: String
        /// The line as written (for the record: `disallow: /private/`).
        public var text: String { (allow ? "allow: " : "disallow: ") + pattern }
    }

    /// A `content-usage` line of the chosen group: the paths it covers (all when nil) and its
    /// preference, as written (an RFC 9651 dictionary, parsed when used).
    public struct UsageLine: Sendable, Equatable {
        public var pattern: String?
        public var preference: String
    }

    public var rules: [Rule] = []
    /// The group's `crawl-delay` in seconds (finite, >= 0), unbounded here: the scheduler bounds it.
    public var crawlDelay: Double?
    public var usage: [UsageLine] = []
    /// Whether the chosen group was the agent's own (else `*`, or none at all).
    public var ownGroup = false

    /// 512 KiB: past the RFC's 500 KiB minimum.
    public static let parseLimit = 512 * 1024
    static let lineLimit = 16 * 1024
    static let ruleLimit = 20_000

    public init() {}

    /// The rules in `bytes` for the crawler whose product token is `agent` (compared without case).
    public init(_ bytes: [UInt8], agent: String) {
        let agent = agent.lowercased()
        var own = RobotsTxt(), any = RobotsTxt()
        var foundOwn = false, foundAny = false
        // The current group's agents: whether it names ours, whether it names `*`.
        var namesOwn = false, namesAny = false
        var inRules = false   // a rule line was seen since the last user-agent line
        var lineStart = 0
        let limit = min(bytes.count, RobotsTxt.parseLimit)
        // A UTF-8 byte order mark at the start is not part of the first line (§2.2, Google's parser).
        if limit >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { lineStart = 3 }
        while lineStart < limit {
            var end = lineStart
            while end < limit, bytes[end] != 10, bytes[end] != 13 { end += 1 }
            defer { lineStart = end + 1 }
            guard end - lineStart <= RobotsTxt.lineLimit, let (key, value) = RobotsTxt.keyValue(bytes[lineStart..<end]) else { continue }
            switch key {
            case "user-agent":
                if inRules { (namesOwn, namesAny, inRules) = (false, false, false) }
                if value == "*" {
                    namesAny = true
                    foundAny = true
                } else if RobotsTxt.productToken(value) == agent, !agent.isEmpty {
                    namesOwn = true
                    foundOwn = true
                }
            case "allow", "disallow", "crawl-delay", "content-usage":
                inRules = true
                if namesOwn { own.add(key, value) }
                if namesAny { any.add(key, value) }
            default:
                continue   // sitemap and unknown keys: neither start nor end a group (§2.2.4)
            }
        }
        if foundOwn {
            self = own
            ownGroup = true
        } else if foundAny {
            self = any
        }
    }

    private mutating func add(_ key: String, _ value: String) {
        switch key {
        case "allow", "disallow":
            // An empty pattern matches nothing (`disallow:` alone allows everything).
            guard !value.isEmpty, rules.count < RobotsTxt.ruleLimit else { return }
            rules.append(Rule(allow: key == "allow", pattern: RobotsTxt.normalise(value)))
        case "crawl-delay":
            if let seconds = Double(value), seconds.isFinite, seconds >= 0, crawlDelay == nil { crawlDelay = seconds }
        default:
            guard usage.count < 256 else { return }
            if value.hasPrefix("/") {
                let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
                let preference = parts.count > 1 ? parts[1].trimmingSpaces : ""
                usage.append(UsageLine(pattern: RobotsTxt.normalise(String(parts[0])), preference: preference))
            } else {
                usage.append(UsageLine(pattern: nil, preference: value))
            }
        }
    }

    /// `key: value` of one line, the key lowercased and the value trimmed, a `#` comment removed;
    /// nil for a line without a colon. A few misspellings Google's parser also takes are read as
    /// the key they mean.
    static func keyValue(_ line: ArraySlice<UInt8>) -> (String, String)? {
        let content = line.firstIndex(of: UInt8(ascii: "#")).map { line[line.startIndex..<$0] } ?? line
        guard let colon = content.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let key = String(decoding: content[content.startIndex..<colon], as: UTF8.self).trimmingSpaces.lowercased()
        let value = String(decoding: content[(colon + 1)...], as: UTF8.self).trimmingSpaces
        switch key {
        case "user-agent", "useragent", "user agent": return ("user-agent", value)
        case "disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw": return ("disallow", value)
        default: return (key, value)
        }
    }

    /// The product token a user-agent line names: its leading letters, `_` and `-` (RFC 9309
    /// §2.2.1), lowercased ("Googlebot/2.1" names `googlebot`).
    static func productToken(_ value: String) -> String {
        String(decoding: value.lowercased().utf8.prefix { (97...122).contains($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }, as: UTF8.self)
    }

    /// The product token of a User-Agent header: its first product's name ("imgfetch/1.2 (x)" is
    /// `imgfetch`), by the same rule.
    public static func agentToken(userAgent: String) -> String {
        let token = productToken(userAgent)
        return token.isEmpty ? "imgfetch" : token
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let bytes = Array(utf8)
        guard let first = bytes.firstIndex(where: { $0 != 32 && $0 != 9 }) else { return "" }
        let last = bytes.lastIndex(where: { $0 != 32 && $0 != 9 })!
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
