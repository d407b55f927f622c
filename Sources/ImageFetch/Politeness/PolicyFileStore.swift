/// The per-origin policy files (robots.txt, `/.well-known/tdmrep.json`) kept in the cache directory
/// (`v1/policy/`), shared by every process on that cache: one file per URL, named by the digest of
/// the URL (never by what a server said), written atomically, beside it the URL's lock file
/// (`<name>.lock`, `LockFile`) that lets one process fetch while the others wait. Everything read
/// back is hostile: at most `maxFileBytes`, a fixed header, the URL it names must be the one asked
/// for, a time in the future is not believed. At most `maxFiles` files: past that the oldest are
/// removed first.
public struct PolicyFileStore: Sendable {
    public let directory: String
    static let directoryName = "policy"
    /// The body kept: robots.txt is parsed to `RobotsTxt.parseLimit`, tdmrep.json to 64 KiB.
    static let maxBodyBytes = RobotsTxt.parseLimit
    static let maxFileBytes = maxBodyBytes + 4096
    static let maxFiles = 4096

    /// One stored answer: the URL asked, when it was fetched, its HTTP status (2xx: `body` is the
    /// file; 4xx: no file; 429 or 5xx: unavailable), and the body.
    public struct Stored: Sendable, Equatable {
        public var url: String
        public var fetched: Double
        public var status: Int
        public var body: [UInt8]
        public init(url: String, fetched: Double, status: Int, body: [UInt8]) {
            self.url = url
            self.fetched = fetched
            self.status = status
            self.body = body
        }
    }

    public init(cacheDirectory: String) {
        directory = cacheDirectory + "/" + CacheLayout.version + "/" + PolicyFileStore.directoryName
    }

    var isUsable: Bool { FileSystem.linkStatus(directory)?.isDirectory == true }

    static func name(_ url: String) -> String { String(SHA256.hex(url).prefix(32)) }
    func path(_ url: String) -> String { directory + "/" + PolicyFileStore.name(url) }

    /// The stored answer for `url`, whatever its age (the caller decides), else nil.
    public func read(_ url: String, now: Double = FileSystem.now()) -> Stored? {
        guard isUsable, let bytes = try? FileSystem.readRegular(path(url), maxBytes: PolicyFileStore.maxFileBytes),
              let stored = PolicyFileStore.parse(bytes), stored.url == url, stored.fetched <= now + 300 else { return nil }
        return stored
    }

    /// Writes `stored` (replacing any); false when it could not.
    @discardableResult
    public func write(_ stored: Stored) -> Bool {
        guard (try? FileSystem.makeDirectories(directory)) != nil, isUsable else { return false }
        let names = FileSystem.list(directory).filter(PolicyFileStore.isDataName)
        if names.count >= PolicyFileStore.maxFiles { removeOldest(names) }
        return (try? FileSystem.writeAtomically(PolicyFileStore.encode(stored), to: path(stored.url), temporaryDirectory: directory,
                                                sync: false)) != nil
    }

    /// The bytes of a stored answer (the file, and the remote tier's object).
    static func encode(_ stored: Stored) -> [UInt8] {
        let header = "imgfetch-policy 1\n\(stored.url)\n\(stored.fetched)\n\(stored.status)\n"
        return Array(header.utf8) + stored.body.prefix(PolicyFileStore.maxBodyBytes)
    }

    /// The remote tier's object name of `url`'s answer: the URL's digest, `.policy` (never a
    /// name `cache pull` takes for an entry).
    static func remoteName(_ url: String) -> String { SHA256.hex(url) + ".policy" }

    /// The lock of `url`, taken without waiting: `.acquired` (this process fetches), `.held` (another
    /// does: wait and read again), or `.unsupported`; nil when the file cannot be made.
    func tryLock(_ url: String, holder: String) -> LockFile.Attempt? {
        guard (try? FileSystem.makeDirectories(directory)) != nil, isUsable else { return nil }
        return try? LockFile.tryExclusive(path(url) + ".lock", holder: holder)
    }

    /// Removes the oldest quarter of the data files (and their locks).
    private func removeOldest(_ names: [String]) {
        let dated = names.map { ($0, FileSystem.linkStatus(directory + "/" + $0)?.modified ?? 0) }.sorted { $0.1 < $1.1 }
        for (name, _) in dated.prefix(max(1, names.count / 4)) {
            _ = FileSystem.remove(directory + "/" + name)
            _ = FileSystem.remove(directory + "/" + name + ".lock")
        }
    }

    /// A data file's name (32 lowercase hex digits).
    static func isDataName(_ name: String) -> Bool {
        name.utf8.count == 32 && name.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Whether `name` may be in the directory: a data file, its lock, or a write in progress.
    static func isName(_ name: String) -> Bool {
        isDataName(name) || (name.hasSuffix(".lock") && isDataName(String(name.dropLast(5)))) || CacheLayout.isTemporary(name)
    }

    /// The form `write` makes, else nil.
    static func parse(_ bytes: [UInt8]) -> Stored? {
        var lines: [String] = []
        var start = 0
        for i in bytes.indices where bytes[i] == 10 {
            lines.append(String(decoding: bytes[start..<i], as: UTF8.self))
            start = i + 1
            if lines.count == 4 { break }
        }
        guard lines.count == 4, lines[0] == "imgfetch-policy 1",
              lines[1].hasPrefix("http://") || lines[1].hasPrefix("https://"), lines[1].utf8.count <= 4096,
              lines[1].utf8.allSatisfy({ $0 > 32 && $0 < 127 }),
              let fetched = Double(lines[2]), fetched.isFinite, fetched >= 0,
              let status = Int(lines[3]), (100...599).contains(status) else { return nil }
        return Stored(url: lines[1], fetched: fetched, status: status, body: Array(bytes[start...]))
    }
}
