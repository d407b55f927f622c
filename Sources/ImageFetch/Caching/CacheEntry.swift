/// The metadata of one cache entry, stored beside its image bytes as `<key>.meta`.
/// The `.meta` file is written last: its atomic rename is the commit of the entry.
public struct CacheEntry: Sendable, Equatable {
    public var key: String
    /// The source's identity (what `cache rm SOURCE` matches).
    public var identity: String
    /// The source as shown to users.
    public var source: String
    /// The processing identifier (`original` for a source's original bytes).
    public var variant: String
    public var format: String
    public var width: Int
    public var height: Int
    public var bytes: Int64
    /// `xxh64:<hex>` of the image bytes: an entry whose bytes do not match is never served.
    public var checksum: String
    /// Seconds since the epoch.
    public var created: Double
    /// Seconds since the epoch; nil never expires.
    public var expires: Double?
    public var etag: String?
    public var lastModified: String?
    /// `Cache-Control: no-cache`: revalidate before every use.
    public var mustRevalidate: Bool
    /// Last access, seconds since the epoch (read from the data file's mtime when listing).
    public var lastAccess: Double

    public init(key: String, identity: String, source: String, variant: String, format: String, width: Int, height: Int,
                bytes: Int64, checksum: String, created: Double, expires: Double?, etag: String? = nil,
                lastModified: String? = nil, mustRevalidate: Bool = false, lastAccess: Double? = nil) {
        self.key = key
        self.identity = identity
        self.source = source
        self.variant = variant
        self.format = format
        self.width = width
        self.height = height
        self.bytes = bytes
        self.checksum = checksum
        self.created = created
        self.expires = expires
        self.etag = etag
        self.lastModified = lastModified
        self.mustRevalidate = mustRevalidate
        self.lastAccess = lastAccess ?? created
    }

    public var isOriginal: Bool { variant == "original" }
    public var hasValidators: Bool { etag != nil || lastModified != nil }

    /// Past its expiry time (a `no-cache` entry that has not expired is not "expired", just revalidated).
    public func isExpired(at now: Double) -> Bool { expires.map { now >= $0 } ?? false }

    /// Fresh: usable without asking the server.
    public func isFresh(at now: Double) -> Bool {
        if mustRevalidate { return false }
        guard let expires else { return true }
        return now < expires
    }
}

extension CacheEntry {
    static let magic = "imgfetch-meta 1"

    /// A line-based text form: fast to parse (100,000 entries must list in well under 2 s) and readable.
    func encoded() -> [UInt8] {
        var lines = [CacheEntry.magic]
        func add(_ name: String, _ value: String?) {
            guard let value else { return }
            lines.append(name + "\t" + CacheEntry.escape(value))
        }
        add("key", key); add("identity", identity); add("source", source); add("variant", variant)
        add("format", format); add("width", String(width)); add("height", String(height))
        add("bytes", String(bytes)); add("checksum", checksum); add("created", String(created))
        add("expires", expires.map { String($0) }); add("etag", etag); add("last_modified", lastModified)
        add("must_revalidate", mustRevalidate ? "1" : nil)
        lines.append("end")
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Parses `encoded()`; nil when the text is not a complete entry (a torn or foreign file).
    static func decode(_ bytes: [UInt8]) -> CacheEntry? {
        var fields: [Substring: String] = [:]
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)[...]
        // A complete entry starts with the magic line and ends with "end\n": anything else is torn.
        guard lines.first == Substring(magic), lines.last == "end", bytes.last == UInt8(ascii: "\n") else { return nil }
        lines = lines.dropFirst().dropLast()
        for line in lines {
            guard let tab = line.firstIndex(of: "\t") else { return nil }
            fields[line[..<tab]] = unescape(line[line.index(after: tab)...])
        }
        guard let key = fields["key"], let identity = fields["identity"], let source = fields["source"],
              let variant = fields["variant"], let format = fields["format"],
              let width = fields["width"].flatMap({ Int($0) }), let height = fields["height"].flatMap({ Int($0) }),
              let size = fields["bytes"].flatMap({ Int64($0) }), let checksum = fields["checksum"],
              let created = fields["created"].flatMap({ Double($0) }) else { return nil }
        return CacheEntry(key: key, identity: identity, source: source, variant: variant, format: format,
                          width: width, height: height, bytes: size, checksum: checksum, created: created,
                          expires: fields["expires"].flatMap { Double($0) }, etag: fields["etag"],
                          lastModified: fields["last_modified"], mustRevalidate: fields["must_revalidate"] == "1")
    }

    static func escape(_ s: String) -> String {
        guard s.contains(where: { $0 == "\n" || $0 == "\t" || $0 == "\\" || $0 == "\r" }) else { return s }
        var out = ""
        for c in s {
            switch c {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default: out.append(c)
            }
        }
        return out
    }

    static func unescape(_ s: Substring) -> String {
        guard s.contains("\\") else { return String(s) }
        var out = ""
        var escaping = false
        for c in s {
            if escaping {
                switch c {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                default: out.append(c)
                }
                escaping = false
            } else if c == "\\" {
                escaping = true
            } else {
                out.append(c)
            }
        }
        return out
    }
}
