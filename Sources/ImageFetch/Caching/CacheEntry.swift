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
    /// The HTTP response the entry came from (nil for files, data: URLs and entries of older versions).
    public var response: StoredResponse?
    /// The request header values the response varies on (`Vary`), as `Vary.selection`; nil = none.
    public var vary: String?
    /// Asked for with headers, a cookie or credentials (`NetworkOptions.keyPart`): a shared cache
    /// may hold it only when its response says `public` (`cache push`). Default false.
    public var shaped = false
    /// BlurHash, ThumbHash and mean colour of the image (`--placeholder`); nil until asked for once.
    public var placeholders: Placeholders? = nil
    /// Why the entry is kept, which orders eviction (`DiskCache+Candidates.swift`). Default `requested`.
    public var kept: Kept = .requested
    /// The quality the image was encoded at, and whether `--max-output-bytes` was exceeded
    /// (`SourceReading`); nil / false for an original or an entry of an older version.
    public var quality: Int? = nil
    public var overBudget = false
    /// Made from the first scans of a progressive JPEG (a partial read): its own key, a variant.
    public var partial = false
    /// The source as it was loaded, before processing (`source_sha256`, `source_width`,
    /// `source_height` in a record): SHA-256 (hex) of its bytes as downloaded, and its size; nil for
    /// an entry of an older version (and the hash for a partial read, which never saw every byte).
    public var sourceSHA256: String? = nil
    public var sourceWidth: Int? = nil
    public var sourceHeight: Int? = nil
    /// The source's damaged metadata blocks the image was made without (`exif`, `xmp`:
    /// `metadata_dropped` in a record); none for an original, which keeps its bytes.
    public var metadataDropped: [String] = []
    /// Stored from a request's low-data source: that request's output key, whose low-data index
    /// (`LowDataIndex`) names this entry; removed with it. nil: none.
    public var lowDataOf: String? = nil

    /// Eviction takes the lowest tier first, least recently used first within a tier.
    public enum Kept: String, Sendable, Comparable {
        // A future `partial` (a resumable download) goes below `byproduct`: trimmed first.
        /// A source's original kept beside the variant asked for (`--no-keep-original` not given):
        /// it only saves a download when another size is asked for later.
        case byproduct
        /// An output that was asked for (a variant, or the original asked for as it is).
        case requested

        /// Eviction order: lower goes first. Also the digit the candidate list records.
        public var tier: UInt8 { self == .byproduct ? 1 : 2 }
        public static func < (a: Kept, b: Kept) -> Bool { a.tier < b.tier }
    }

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

    /// This entry's metadata for other stored bytes: another key and variant of the same source
    /// (its checksum is computed by the store).
    func describing(_ key: CacheKey, variant: String, format: String, width: Int, height: Int, bytes: Int) -> CacheEntry {
        var entry = self
        entry.key = key.rawValue
        entry.variant = variant
        entry.format = format
        entry.width = width
        entry.height = height
        entry.bytes = Int64(bytes)
        entry.checksum = ""
        entry.placeholders = nil   // another image's
        entry.quality = nil
        entry.overBudget = false
        entry.partial = false
        entry.metadataDropped = []
        entry.lowDataOf = nil
        return entry
    }

    /// Past its expiry time (a `no-cache` entry that has not expired is not "expired", just revalidated).
    public func isExpired(at now: Double) -> Bool { expires.map { now >= $0 } ?? false }

    /// Fresh: usable without asking the server (and, for a response with `Vary`, selected by the
    /// request headers imgfetch sends: `saveData`, whether they include `Save-Data: on`).
    public func isFresh(at now: Double, saveData: @autoclosure () -> Bool = false) -> Bool {
        if mustRevalidate { return false }
        if vary != nil && !Vary.matches(vary, saveData: saveData()) { return false }
        guard let expires else { return true }
        return now < expires
    }
}

extension CacheEntry {
    static let magic = "imgfetch-meta 1"
    /// Bounds of the numbers a `.meta` may hold: 1 TiB of image, 2^31 pixels a side, times within
    /// ±300,000 years of the epoch (an `Expires` in the year 9999 still fits).
    static let maxBytes: Int64 = 1 << 40
    static let maxDimension = Int(Int32.max)
    static func isTime(_ t: Double) -> Bool { t.isFinite && abs(t) <= 1e13 }

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
        if let response {
            add("status", String(response.status)); add("request_time", String(response.requestTime))
            add("response_time", String(response.responseTime)); add("ttl", String(response.defaultTTL))
            for line in response.headerLines { add("header", line) }
        }
        add("vary", vary)
        add("shaped", shaped ? "1" : nil)
        add("blurhash", placeholders?.blurhash); add("thumbhash", placeholders?.thumbhash)
        add("average_color", placeholders?.averageColorHex)
        // Older builds ignore the field (and keep such an entry as any other).
        add("kept", kept == .byproduct ? Kept.byproduct.rawValue : nil)
        add("quality", quality.map { String($0) }); add("over_budget", overBudget ? "1" : nil)
        add("partial", partial ? "1" : nil)
        add("source_sha256", sourceSHA256)
        add("source_width", sourceWidth.map { String($0) }); add("source_height", sourceHeight.map { String($0) })
        add("metadata_dropped", metadataDropped.isEmpty ? nil : metadataDropped.joined(separator: ","))
        add("low_data_of", lowDataOf)
        lines.append("end")
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Parses `encoded()`; nil when the text is not a complete entry (a torn or foreign file).
    /// Works on bytes (`cache ls` decodes 100,000 of these): a String is made only for each value.
    static func decode(_ bytes: [UInt8]) -> CacheEntry? {
        let magicBytes = Array((magic + "\n").utf8)
        let endBytes: [UInt8] = Array("end\n".utf8)
        guard bytes.count > magicBytes.count + endBytes.count, bytes.starts(with: magicBytes),
              bytes[(bytes.count - endBytes.count)...].elementsEqual(endBytes),
              bytes[bytes.count - endBytes.count - 1] == UInt8(ascii: "\n") else { return nil }
        var key: String?, identity: String?, source: String?, variant: String?, format: String?
        var width: Int?, height: Int?, size: Int64?, checksum: String?, created: Double?
        var expires: Double?, etag: String?, lastModified: String?, mustRevalidate = false, shaped = false
        var blurhash: String?, thumbhash: String?, averageColor: String?
        var kept = Kept.requested
        var quality: Int?, overBudget = false, partial = false
        var sourceSHA256: String?, sourceWidth: Int?, sourceHeight: Int?, lowDataOf: String?
        var metadataDropped: [String] = []
        var status: Int?, requestTime: Double?, responseTime: Double?, ttl: Double?, headerLines: [String] = [], vary: String?
        var lineStart = magicBytes.count
        let end = bytes.count - endBytes.count
        while lineStart < end {
            guard let newline = bytes[lineStart..<end].firstIndex(of: UInt8(ascii: "\n")),
                  let tab = bytes[lineStart..<newline].firstIndex(of: UInt8(ascii: "\t")) else { return nil }
            let name = bytes[lineStart..<tab]
            let raw = bytes[(tab + 1)..<newline]
            let value = raw.contains(UInt8(ascii: "\\")) ? unescape(Substring(String(decoding: raw, as: UTF8.self)))
                                                           : String(decoding: raw, as: UTF8.self)
            switch name.count {
            case 3 where name.elementsEqual("key".utf8): key = value
            case 8 where name.elementsEqual("identity".utf8): identity = value
            // Redacted as it is read: an entry written before redaction may hold a password.
            case 6 where name.elementsEqual("source".utf8): source = Source.redacted(value)
            case 7 where name.elementsEqual("variant".utf8): variant = value
            case 6 where name.elementsEqual("format".utf8): format = value
            case 5 where name.elementsEqual("width".utf8): width = Int(value)
            case 6 where name.elementsEqual("height".utf8): height = Int(value)
            case 5 where name.elementsEqual("bytes".utf8): size = Int64(value)
            case 8 where name.elementsEqual("checksum".utf8): checksum = value
            case 7 where name.elementsEqual("created".utf8): created = Double(value)
            case 7 where name.elementsEqual("expires".utf8): expires = Double(value)
            case 4 where name.elementsEqual("etag".utf8): etag = value
            case 13 where name.elementsEqual("last_modified".utf8): lastModified = value
            case 15 where name.elementsEqual("must_revalidate".utf8): mustRevalidate = value == "1"
            case 6 where name.elementsEqual("status".utf8): status = Int(value).flatMap { (100...999).contains($0) ? $0 : nil }
            case 12 where name.elementsEqual("request_time".utf8): requestTime = Double(value).flatMap { $0.isFinite ? $0 : nil }
            case 13 where name.elementsEqual("response_time".utf8): responseTime = Double(value).flatMap { $0.isFinite ? $0 : nil }
            case 3 where name.elementsEqual("ttl".utf8): ttl = Double(value).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            case 6 where name.elementsEqual("header".utf8): if headerLines.count < 32 && value.utf8.count <= 2100 { headerLines.append(value) }
            case 4 where name.elementsEqual("vary".utf8): vary = value.utf8.count <= 8_192 ? value : nil
            case 6 where name.elementsEqual("shaped".utf8): shaped = value == "1"
            case 8 where name.elementsEqual("blurhash".utf8): blurhash = value
            case 9 where name.elementsEqual("thumbhash".utf8): thumbhash = value
            case 13 where name.elementsEqual("average_color".utf8): averageColor = value
            case 4 where name.elementsEqual("kept".utf8): kept = Kept(rawValue: value) ?? .requested
            case 7 where name.elementsEqual("quality".utf8): quality = Int(value).flatMap { (1...100).contains($0) ? $0 : nil }
            case 11 where name.elementsEqual("over_budget".utf8): overBudget = value == "1"
            case 7 where name.elementsEqual("partial".utf8): partial = value == "1"
            case 13 where name.elementsEqual("source_sha256".utf8): sourceSHA256 = isHexDigest(value) ? value : nil
            case 12 where name.elementsEqual("source_width".utf8): sourceWidth = Int(value).flatMap { (0...maxDimension).contains($0) ? $0 : nil }
            case 13 where name.elementsEqual("source_height".utf8): sourceHeight = Int(value).flatMap { (0...maxDimension).contains($0) ? $0 : nil }
            case 16 where name.elementsEqual("metadata_dropped".utf8):
                metadataDropped = value.split(separator: ",").map(String.init).filter { ["exif", "xmp"].contains($0) }
            case 11 where name.elementsEqual("low_data_of".utf8): lowDataOf = CacheLayout.isKey(value) ? value : nil
            default: break  // a field from a newer version: ignored
            }
            lineStart = newline + 1
        }
        guard let key, let identity, let source, let variant, let format, let width, let height,
              let size, let checksum, let created else { return nil }
        // Everything read from disk is bounded before any arithmetic sees it (a planted Int64.max
        // once trapped in the size total): an entry out of bounds is torn, a miss.
        guard CacheLayout.isKey(key), (0...maxBytes).contains(size),
              (0...maxDimension).contains(width), (0...maxDimension).contains(height),
              isTime(created), expires.map(isTime) ?? true else { return nil }
        var entry = CacheEntry(key: key, identity: identity, source: source, variant: variant, format: format,
                               width: width, height: height, bytes: size, checksum: checksum, created: created,
                               expires: expires, etag: etag, lastModified: lastModified, mustRevalidate: mustRevalidate)
        if let status, let requestTime, let responseTime, let ttl, isTime(requestTime), isTime(responseTime),
           ttl <= 4_000_000_000 {
            entry.response = StoredResponse(status: status, requestTime: requestTime, responseTime: responseTime,
                                            defaultTTL: ttl, headerLines: headerLines)
        }
        entry.vary = vary
        entry.shaped = shaped
        entry.quality = quality
        entry.overBudget = overBudget
        entry.partial = partial
        entry.sourceSHA256 = sourceSHA256
        entry.sourceWidth = sourceWidth
        entry.sourceHeight = sourceHeight
        entry.metadataDropped = metadataDropped
        entry.lowDataOf = lowDataOf
        // Checked as they are read: a malformed value is dropped (computed again when asked for).
        entry.placeholders = Placeholders(blurhash: blurhash, thumbhash: thumbhash, averageColor: averageColor)
        entry.kept = kept
        return entry
    }

    /// 64 lowercase hex digits (a planted value of another shape is dropped as it is read).
    static func isHexDigest(_ value: String) -> Bool {
        value.utf8.count == 64 && value.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    static func escape(_ s: String) -> String {
        // By Unicode scalars: "\r\n" is a single Character and would slip past a Character switch.
        guard s.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\t" || $0 == "\\" || $0 == "\r" }) else { return s }
        var out = String.UnicodeScalarView()
        for c in s.unicodeScalars {
            switch c {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            default: out.append(c)
            }
        }
        return String(out)
    }

    static func unescape(_ s: Substring) -> String {
        guard s.unicodeScalars.contains("\\") else { return String(s) }
        // By Unicode scalars, as `escape` writes them: "\\n" followed by a combining mark is one
        // Character ("n" + U+0301), which a Character switch would not read as an escape.
        var out = String.UnicodeScalarView()
        var escaping = false
        for c in s.unicodeScalars {
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
        return String(out)
    }
}
