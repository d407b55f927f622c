/// The origins' holds in the cache directory (`v1/hold/`), shared by every process on that cache
/// (the shards of one `prefetch`): after a 429/503 or an unexplained failure, until when the origin
/// is held and its strikes in a row (`OriginSchedule`). Stored as the dead-host breaker's marks are
/// (`HostDownMarks`): one small file per origin, named by the digest of the origin, written
/// atomically; everything read back is hostile (at most `maxFileBytes`, a fixed form, the origin
/// asked for, a time within `maxTTL` of now); at most `maxMarks` files, expired ones removed first
/// past that. `stamp()` (one `lstat` of the directory) tells a reader whether anything changed
/// since it last read an origin's file, so a request reads no file while nothing is held.
public struct OriginHoldMarks: Sendable {
    public let directory: String
    static let directoryName = "hold"
    static let maxFileBytes = 512
    public static let maxMarks = 1024
    /// The furthest a hold may end from now, and the longest a mark's strikes are remembered after
    /// its hold ended: an hour (a longer `Retry-After` holds the other processes an hour).
    public static let maxTTL: Double = 3600
    static let maxStrikes = 62

    /// One origin's hold: until when (wall-clock seconds) and its strikes in a row.
    public struct Mark: Sendable, Equatable {
        public var origin: String
        public var until: Double
        public var strikes: Int
        public init(origin: String, until: Double, strikes: Int) {
            self.origin = origin
            self.until = until
            self.strikes = strikes
        }
    }

    /// The holds of the cache at `cacheDirectory`.
    public init(cacheDirectory: String) { directory = cacheDirectory + "/" + CacheLayout.version + "/" + OriginHoldMarks.directoryName }

    func path(_ origin: String) -> String { directory + "/" + String(SHA256.hex(origin).prefix(32)) }

    /// The directory's modification time (it changes with every mark written or removed), nil when
    /// there is no such directory: no origin was ever held on this cache.
    public func stamp() -> Double? {
        guard let status = FileSystem.linkStatus(directory), status.isDirectory else { return nil }
        return status.modified
    }

    /// The mark of `origin` written within `maxTTL` of `now` (its hold may have ended: its strikes
    /// still count), else nil (none, too old, or not a valid mark).
    public func mark(of origin: String, now: Double = FileSystem.now()) -> Mark? {
        guard FileSystem.linkStatus(directory)?.isDirectory == true,
              let bytes = try? FileSystem.readRegular(path(origin), maxBytes: OriginHoldMarks.maxFileBytes),
              let mark = OriginHoldMarks.parse(bytes), mark.origin == origin, OriginHoldMarks.isCurrent(mark, now: now) else { return nil }
        return mark
    }

    /// Writes `mark` (replacing any; a hold further than `maxTTL` from now ends there); false when
    /// it could not (no room, unwritable directory).
    @discardableResult
    public func write(_ mark: Mark, now: Double = FileSystem.now()) -> Bool {
        guard mark.until.isFinite, (try? FileSystem.makeDirectories(directory)) != nil,
              FileSystem.linkStatus(directory)?.isDirectory == true else { return false }
        let names = FileSystem.list(directory)
        if names.count >= OriginHoldMarks.maxMarks {
            removeExpired(names, now: now)
            if FileSystem.list(directory).count >= OriginHoldMarks.maxMarks { return false }
        }
        let until = min(mark.until, now + OriginHoldMarks.maxTTL)
        let strikes = min(max(mark.strikes, 0), OriginHoldMarks.maxStrikes)
        let text = "imgfetch-origin-hold 1\n\(mark.origin)\n\(until)\n\(strikes)\n"
        return (try? FileSystem.writeAtomically(Array(text.utf8), to: path(mark.origin), temporaryDirectory: directory, sync: false)) != nil
    }

    /// Removes the mark of `origin`.
    public func clear(_ origin: String) {
        if FileSystem.linkStatus(directory)?.isDirectory == true { _ = FileSystem.remove(path(origin)) }
    }

    private func removeExpired(_ names: [String], now: Double) {
        for name in names where HostDownMarks.isName(name) {
            let file = directory + "/" + name
            let bytes = try? FileSystem.readRegular(file, maxBytes: OriginHoldMarks.maxFileBytes)
            if let mark = bytes.flatMap(OriginHoldMarks.parse), mark.until > now { continue }
            _ = FileSystem.remove(file)
        }
    }

    static func isName(_ name: String) -> Bool { HostDownMarks.isName(name) }

    static func isCurrent(_ mark: Mark, now: Double) -> Bool {
        mark.until - now <= maxTTL && now - mark.until <= maxTTL
    }

    /// The form `write` makes, else nil: the header, an origin `scheme://host:port`, a finite time,
    /// a count of strikes from 0 to `maxStrikes`.
    static func parse(_ bytes: [UInt8]) -> Mark? {
        let lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard lines.count == 5, lines[0] == "imgfetch-origin-hold 1", lines[4].isEmpty,
              lines[1].hasPrefix("http://") || lines[1].hasPrefix("https://"), lines[1].utf8.count <= 300,
              lines[1].utf8.allSatisfy({ $0 > 32 && $0 < 127 }),
              let until = Double(lines[2]), until.isFinite, lines[3].utf8.count <= 2,
              let strikes = Int(lines[3]), (0...maxStrikes).contains(strikes) else { return nil }
        return Mark(origin: lines[1], until: until, strikes: strikes)
    }
}
