/// The origins' holds in the cache directory (`v1/hold/`), shared by every process on that cache
/// (the shards of one `prefetch`): after a 429/503 or an unexplained failure, until when the origin
/// is held, its strikes in a row, until when its starts are paced and the earliest next start
/// (`OriginSchedule`; `claimStart` takes a start under the origin's lock file, `<digest>.lock`). Stored as the dead-host breaker's marks are
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

    /// One origin's hold: until when (wall-clock seconds), its strikes in a row, until when its
    /// starts are paced, and the earliest next start while they are.
    public struct Mark: Sendable, Equatable {
        public var origin: String
        public var until: Double
        public var strikes: Int
        public var pacedUntil: Double
        public var next: Double
        public init(origin: String, until: Double, strikes: Int, pacedUntil: Double = 0, next: Double = 0) {
            self.origin = origin
            self.until = until
            self.strikes = strikes
            self.pacedUntil = pacedUntil
            self.next = next
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
        guard mark.pacedUntil.isFinite, mark.next.isFinite else { return false }
        let until = min(mark.until, now + OriginHoldMarks.maxTTL), strikes = min(max(mark.strikes, 0), OriginHoldMarks.maxStrikes)
        let paced = min(max(mark.pacedUntil, 0), now + OriginHoldMarks.maxTTL), next = min(max(mark.next, 0), now + OriginHoldMarks.maxTTL)
        let text = "imgfetch-origin-hold 1\n\(mark.origin)\n\(until)\n\(strikes)\n\(paced)\n\(next)\n"
        return (try? FileSystem.writeAtomically(Array(text.utf8), to: path(mark.origin), temporaryDirectory: directory, sync: false)) != nil
    }

    /// Removes the mark of `origin`.
    public func clear(_ origin: String) {
        if FileSystem.linkStatus(directory)?.isDirectory == true { _ = FileSystem.remove(path(origin)) }
    }

    /// A request to `origin` would start at `now`: 0 when it may (its mark, if paced, now says the
    /// next start is `spacing` later), else the seconds to wait (held, the next start not yet due,
    /// or another process taking a start this moment). Under the origin's lock file, so two
    /// processes never take the same start; where locks are refused, 0 (paced in this process only).
    public func claimStart(_ origin: String, spacing: Double, now: Double = FileSystem.now()) -> Double {
        guard FileSystem.linkStatus(directory)?.isDirectory == true else { return 0 }
        guard let attempt = try? LockFile.tryExclusive(path(origin) + OriginHoldMarks.lockSuffix, holder: "") else { return 0 }
        switch attempt {
        case .held: return OriginHoldMarks.busy
        case .unsupported: return 0
        case .acquired(let lock):
            defer { lock.release() }
            guard var mark = mark(of: origin, now: now) else { return 0 }
            let due = max(mark.until, mark.next)
            if due > now { return due - now }
            guard mark.pacedUntil > now, spacing > 0 else { return 0 }
            mark.next = now + spacing
            write(mark, now: now)
            return 0
        }
    }

    static let lockSuffix = ".lock"
    /// How soon a start refused because another process holds the lock asks again.
    static let busy: Double = 0.02

    private func removeExpired(_ names: [String], now: Double) {
        for name in names where HostDownMarks.isName(name) {
            let file = directory + "/" + name
            let bytes = try? FileSystem.readRegular(file, maxBytes: OriginHoldMarks.maxFileBytes)
            if let mark = bytes.flatMap(OriginHoldMarks.parse), max(mark.until, mark.pacedUntil, mark.next) > now { continue }
            _ = FileSystem.remove(file)
            _ = FileSystem.remove(file + OriginHoldMarks.lockSuffix)
        }
    }

    /// A mark's name, or its lock file's.
    static func isName(_ name: String) -> Bool {
        HostDownMarks.isName(name.hasSuffix(lockSuffix) ? String(name.dropLast(lockSuffix.count)) : name)
    }

    static func isCurrent(_ mark: Mark, now: Double) -> Bool {
        let latest = max(mark.until, mark.pacedUntil, mark.next)
        return mark.until - now <= maxTTL && mark.pacedUntil - now <= maxTTL && mark.next - now <= maxTTL && now - latest <= maxTTL
    }

    /// The form `write` makes, else nil: the header, an origin `scheme://host:port`, a finite time,
    /// a count of strikes from 0 to `maxStrikes`, two finite times from 0.
    static func parse(_ bytes: [UInt8]) -> Mark? {
        let lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard lines.count == 7, lines[0] == "imgfetch-origin-hold 1", lines[6].isEmpty,
              let paced = Double(lines[4]), let next = Double(lines[5]), paced.isFinite, next.isFinite, paced >= 0, next >= 0,
              lines[1].hasPrefix("http://") || lines[1].hasPrefix("https://"), lines[1].utf8.count <= 300,
              lines[1].utf8.allSatisfy({ $0 > 32 && $0 < 127 }),
              let until = Double(lines[2]), until.isFinite, lines[3].utf8.count <= 2,
              let strikes = Int(lines[3]), (0...maxStrikes).contains(strikes) else { return nil }
        return Mark(origin: lines[1], until: until, strikes: strikes, pacedUntil: paced, next: next)
    }
}
