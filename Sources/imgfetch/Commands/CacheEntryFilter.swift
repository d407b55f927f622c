import ArgumentKit
import ImageFetch

/// The entry filters of `cache ls`, `cache rm` and `cache prune`, combined with AND: `--source`,
/// `--originals`/`--variants`, `--larger-than`/`--smaller-than` (the image file's bytes),
/// `--older-than`/`--newer-than` (the time since the entry was stored: `created`, the AGE column,
/// not the last access), `--expired`/`--fresh` and `--format`. A check per entry, so `cache ls`
/// still streams.
struct CacheEntryFilter {
    var source: String?
    /// `source`'s UTF-8 bytes: a byte search per entry (String.contains compares characters, ~10x slower).
    var sourceBytes: [UInt8] = []
    var originals = false, variants = false
    var largerThan: Int64?, smallerThan: Int64?
    var olderThan: Double?, newerThan: Double?
    var expired = false, fresh = false
    var format: ImageFormat?
    /// How `format` may be spelled in an entry's metadata (`jpeg`, `jpg`): a set look-up per entry.
    var formatSpellings: Set<String> = []
    /// "Now" for ages and expiry: read once, so every entry is judged at the same time.
    var now: Double

    /// Formats `--format` takes.
    static let formatNames = ImageFormat.registry.map(\.format.rawValue)

    static let options = OptionSpec.list(
        OptionKeys.source, OptionKeys.originals, OptionKeys.variants, OptionKeys.largerThan, OptionKeys.smallerThan,
        OptionKeys.olderThan, OptionKeys.newerThan, OptionKeys.expired, OptionKeys.fresh, OptionKeys.entryFormat)

    /// The names of the options above, for "any filter given?".
    static let names = options.map(\.long)

    init(_ parsed: ParsedCommand, now: Double = FileSystem.now()) throws(UsageError) {
        self.now = now
        source = parsed[OptionKeys.source]
        sourceBytes = Array((source ?? "").utf8)
        originals = parsed[OptionKeys.originals]
        variants = parsed[OptionKeys.variants]
        largerThan = try parsed[OptionKeys.largerThan]
        smallerThan = try parsed[OptionKeys.smallerThan]
        olderThan = try parsed[OptionKeys.olderThan]
        newerThan = try parsed[OptionKeys.newerThan]
        expired = parsed[OptionKeys.expired]
        fresh = parsed[OptionKeys.fresh]
        if expired && fresh { throw parsed.error("--expired and --fresh: no entry is both (give one)") }
        if let name = parsed[OptionKeys.entryFormat] {
            guard let f = ImageFormat(name: name), f != .original, f != .auto else {
                throw parsed.error("invalid value '\(name)' for '--format': expected \(Self.formatNames.joined(separator: ", "))")
            }
            format = f
            formatSpellings = Set(ImageFormat.registry.filter { $0.format == f }.flatMap { [$0.format.rawValue] + $0.extensions })
        }
    }

    /// Whether any filter was given.
    var isEmpty: Bool {
        source == nil && originals == variants && largerThan == nil && smallerThan == nil && olderThan == nil
            && newerThan == nil && !expired && !fresh && format == nil
    }

    func matches(_ e: CacheEntry) -> Bool {
        // Both --originals and --variants, or neither: every kind.
        if originals != variants && originals != e.isOriginal { return false }
        if let largerThan, e.bytes <= largerThan { return false }
        if let smallerThan, e.bytes >= smallerThan { return false }
        if let olderThan, now - e.created <= olderThan { return false }
        if let newerThan, now - e.created >= newerThan { return false }
        if expired && !e.isExpired(at: now) { return false }
        if fresh && !e.isFresh(at: now) { return false }
        if format != nil, !formatSpellings.contains(e.format), ImageFormat(name: e.format) != format { return false }
        if source != nil, !Self.contains(e.source, sourceBytes) { return false }
        return true
    }

    /// Whether `text`'s UTF-8 holds `needle` (both valid UTF-8: a match starts and ends on characters' bytes).
    static func contains(_ text: String, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        var text = text
        return text.withUTF8 { h in
            guard h.count >= needle.count else { return false }
            var i = 0
            let last = h.count - needle.count
            while i <= last {
                if h[i] == first {
                    var j = 1
                    while j < needle.count && h[i + j] == needle[j] { j += 1 }
                    if j == needle.count { return true }
                }
                i += 1
            }
            return false
        }
    }

    /// What the filters pick, in words: "originals larger than 1.0 MB, stored more than 30d ago".
    var description: String {
        var parts: [String] = []
        if originals != variants { parts.append(originals ? "originals" : "variants") }
        if let format { parts.append(format.rawValue) }
        if expired { parts.append("expired") }
        if fresh { parts.append("fresh") }
        var words = (parts.isEmpty ? ["entries"] : parts).joined(separator: " ")
        var clauses: [String] = []
        if let largerThan { clauses.append("larger than \(Formatting.size(largerThan))") }
        if let smallerThan { clauses.append("smaller than \(Formatting.size(smallerThan))") }
        if let olderThan { clauses.append("stored more than \(Formatting.duration(olderThan)) ago") }
        if let newerThan { clauses.append("stored less than \(Formatting.duration(newerThan)) ago") }
        if let source { clauses.append("whose source contains \(TerminalText.escaped(source))") }
        if !clauses.isEmpty { words += " " + clauses.joined(separator: ", ") }
        return words
    }
}
