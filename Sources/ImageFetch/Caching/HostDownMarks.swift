/// The dead-host breaker's marks in the cache directory (`v1/down/`), shared by every process on
/// that cache: one small file per origin marked down, named by the digest of the origin (a name
/// never made of what a server or a list said), written atomically (temporary file + rename).
/// Everything read back is hostile: at most `maxFileBytes`, a fixed form, the origin it names must
/// be the one asked for, and a mark that says it lasts beyond `maxTTL` from now is ignored. At most
/// `maxMarks` files: past that, expired marks are removed first, and no new one is written.
public struct HostDownMarks: Sendable {
    public let directory: String
    static let directoryName = "down"
    static let maxFileBytes = 2048
    public static let maxMarks = 1024
    /// The longest a mark may last (a clock set back, a file written by hand): a week.
    static let maxTTL: Double = 7 * 86400

    /// One mark: the origin, when it was marked and until when, and why (one line of words).
    public struct Mark: Sendable, Equatable {
        public var origin: String
        public var since: Double
        public var until: Double
        public var reason: String
    }

    /// The marks of the cache at `cacheDirectory`.
    public init(cacheDirectory: String) { directory = cacheDirectory + "/" + CacheLayout.version + "/" + HostDownMarks.directoryName }

    /// The directory is a real one (never a link that would lead the marks out of the cache).
    var isUsable: Bool { FileSystem.linkStatus(directory)?.isDirectory == true }

    func path(_ origin: String) -> String { directory + "/" + String(SHA256.hex(origin).prefix(32)) }

    /// The mark of `origin` still in force at `now`, else nil (none, expired, or not a valid mark).
    public func mark(of origin: String, now: Double = FileSystem.now()) -> Mark? {
        guard isUsable, let bytes = try? FileSystem.readRegular(path(origin), maxBytes: HostDownMarks.maxFileBytes),
              let mark = HostDownMarks.parse(bytes), mark.origin == origin, mark.until > now,
              mark.until - now <= HostDownMarks.maxTTL else { return nil }
        return mark
    }

    /// Writes `mark` (replacing any); false when it could not (no room, unwritable directory).
    @discardableResult
    public func write(_ mark: Mark) -> Bool {
        guard (try? FileSystem.makeDirectories(directory)) != nil, isUsable else { return false }
        let names = FileSystem.list(directory)
        if names.count >= HostDownMarks.maxMarks {
            removeExpired(names)
            if FileSystem.list(directory).count >= HostDownMarks.maxMarks { return false }
        }
        let text = "imgfetch-host-down 1\n\(mark.origin)\n\(mark.since)\n\(mark.until)\n\(HostDownMarks.line(mark.reason))\n"
        return (try? FileSystem.writeAtomically(Array(text.utf8), to: path(mark.origin), temporaryDirectory: directory, sync: false)) != nil
    }

    /// Removes the mark of `origin` (a success, or `--force-refresh`).
    public func clear(_ origin: String) { if isUsable { _ = FileSystem.remove(path(origin)) } }

    /// Every mark in force at `now`, by origin (`cache stats`).
    public func all(now: Double = FileSystem.now()) -> [Mark] {
        guard isUsable else { return [] }
        return FileSystem.list(directory).filter(HostDownMarks.isName).compactMap { name in
            guard let bytes = try? FileSystem.readRegular(directory + "/" + name, maxBytes: HostDownMarks.maxFileBytes),
                  let mark = HostDownMarks.parse(bytes), path(mark.origin) == directory + "/" + name,
                  mark.until > now, mark.until - now <= HostDownMarks.maxTTL else { return nil }
            return mark
        }.sorted { $0.origin < $1.origin }
    }

    private func removeExpired(_ names: [String]) {
        let now = FileSystem.now()
        for name in names where HostDownMarks.isName(name) {
            let file = directory + "/" + name
            let bytes = try? FileSystem.readRegular(file, maxBytes: HostDownMarks.maxFileBytes)
            if let mark = bytes.flatMap(HostDownMarks.parse), mark.until > now { continue }
            _ = FileSystem.remove(file)
        }
    }

    static func isName(_ name: String) -> Bool {
        name.utf8.count == 32 && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The form `write` makes, else nil: the header, an origin `scheme://host:port`, two finite
    /// times, a reason of printable characters.
    static func parse(_ bytes: [UInt8]) -> Mark? {
        let lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard lines.count == 6, lines[0] == "imgfetch-host-down 1", lines[5].isEmpty,
              lines[1].hasPrefix("http://") || lines[1].hasPrefix("https://"), lines[1].utf8.count <= 300,
              lines[1].utf8.allSatisfy({ $0 > 32 && $0 < 127 }),
              let since = Double(lines[2]), let until = Double(lines[3]), since.isFinite, until.isFinite, since <= until,
              lines[4].utf8.allSatisfy({ $0 >= 32 && $0 < 127 }) else { return nil }
        return Mark(origin: lines[1], since: since, until: until, reason: lines[4])
    }

    /// `text` as one line of printable ASCII, at most 300 characters.
    static func line(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(300).map { $0.value >= 32 && $0.value < 127 ? $0 : "?" }))
    }
}
