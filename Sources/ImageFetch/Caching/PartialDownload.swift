#if canImport(Glibc)
import Glibc
#endif

/// Where the body of one download that ended early is kept to be resumed (`Range` + `If-Range`):
/// beside the cache's temporary files, in `v1/partial/`, as `<key>.part` (the body's first bytes)
/// and `<key>.pmeta` (what they are: the validator, the whole length, when). `key` is the request's
/// output key (`RequestPlan.EntryKeys.output`: the source's identity, the variant and what the
/// request sends), so a partial of another source, variant or identity is never found.
///
/// Bounded: a partial is kept only with a strong validator (a strong ETag, else a Last-Modified a
/// minute before the response's Date: `Partial.isStrong`), at most
/// `maxAge` old, and all partials together take at most `budget` bytes (the oldest go first).
/// Everything read back is checked (names, sizes, the validator as a header value): a partial
/// that does not check out is removed, never sent.
public struct PartialSlot: Sendable, Hashable {
    /// The cache's `v1` directory.
    let root: String
    let key: String
    let maxAge: Double
    let budget: Int64

    /// The kept beginning of a body.
    public struct Partial: Sendable, Equatable {
        public var bytes: [UInt8]
        /// What `If-Range` carries: the strong ETag, else the Last-Modified date.
        public var validator: String
        /// The whole body's length, when the response said it.
        public var total: Int64?
        /// The response's `Date` (seconds since the epoch), when it sent one: a `Last-Modified`
        /// validator is kept only when it is `strongDateMargin` before it (`HTTPLoader+Resume.swift`).
        public var date: Double?
        /// The response's `Repr-Digest` (RFC 9530), when it sent one the loader can check: the
        /// stitched body is checked against it, and a continuation of another digest starts over.
        var reprDigest: HTTPDigests?

        public init(bytes: [UInt8], validator: String, total: Int64?, date: Double? = nil) {
            self.bytes = bytes
            self.validator = validator
            self.total = total
            self.date = date
        }

        /// Whether `validator` is a strong one (RFC 9110 §8.8.2.2, §8.8.3): a strong entity tag, or
        /// a `Last-Modified` at least `strongDateMargin` seconds before the response's `Date` (a
        /// second, the RFC's minimum, assumes two clocks that agree; a minute allows for them).
        public var isStrong: Bool {
            if validator.hasPrefix("\"") { return true }
            guard let date, let modified = HTTPDate.parse(validator) else { return false }
            return modified <= date - PartialSlot.strongDateMargin
        }
    }

    /// How long before the response's `Date` a `Last-Modified` must be to be kept as a validator.
    public static let strongDateMargin: Double = 60

    static let directoryName = "partial"
    static let dataExtension = "part"
    static let metaExtension = "pmeta"
    static let magic = "imgfetch-partial 2"   // 1 (no date, no digest): dropped

    /// The partial kept for this download, when there is a usable one (one that is not is removed).
    public func read(now: Double = FileSystem.now()) -> Partial? {
        guard let directory = try? open(create: false) else { return nil }
        guard let (meta, _) = try? directory.read(key + "." + PartialSlot.metaExtension) else {
            removeCounted(in: directory)
            return nil
        }
        let fields = PartialSlot.fields(meta)
        guard let validator = fields["validator"].flatMap(HTTPHeaders.validValue), !validator.isEmpty,
              let length = fields["length"].flatMap(Int64.init), length > 0,
              let created = fields["created"].flatMap(Double.init), now - created <= maxAge, created <= now + 60,
              length <= budget, directory.status(key + "." + PartialSlot.dataExtension)?.size == length,   // never read a huge file
              let (bytes, _) = try? directory.read(key + "." + PartialSlot.dataExtension), Int64(bytes.count) == length else {
            removeCounted(in: directory)
            return nil
        }
        var partial = Partial(bytes: bytes, validator: validator, total: fields["total"].flatMap(Int64.init),
                              date: fields["date"].flatMap(Double.init))
        partial.reprDigest = fields["repr-digest"].flatMap { HTTPDigests(field: $0) }
        if let total = partial.total, total <= length { removeCounted(in: directory); return nil }
        guard partial.isStrong, fields["repr-digest"] == nil || partial.reprDigest != nil else { removeCounted(in: directory); return nil }
        return partial
    }

    /// Keeps `partial` (replacing what was kept), then trims the partials to the budget, oldest first.
    /// Under the cache's lock, counted in its running total (`PartialDownload+Usage.swift`): the new
    /// footprint before it is written, what it replaces and what the trim removes after.
    public func save(_ partial: Partial, now: Double = FileSystem.now()) {
        guard !partial.bytes.isEmpty, Int64(partial.bytes.count) <= budget, partial.isStrong,
              HTTPHeaders.validValue(partial.validator) != nil,
              let directory = try? open(create: true),
              let version = try? DirectoryHandle.open(root, followingLink: false),
              let temporary = try? version.subdirectory(CacheLayout.temporaryDirectory, create: true) else { return }
        var meta = PartialSlot.magic + "\nvalidator " + partial.validator + "\nlength \(partial.bytes.count)\ncreated \(now)\n"
        if let total = partial.total { meta += "total \(total)\n" }
        if let date = partial.date { meta += "date \(date)\n" }
        if let digest = partial.reprDigest { meta += "repr-digest \(digest.field)\n" }
        version.withLock(CacheLayout.lockFile) {
            let replaced = PartialSlot.footprint(of: key, in: directory)
            let added = Int64(partial.bytes.count + meta.utf8.count)
            DiskCache.addUsage(added, in: version)
            do {
                // The meta last: a part without its meta is never read.
                directory.remove(key + "." + PartialSlot.metaExtension)
                try directory.writeAtomically(partial.bytes, to: key + "." + PartialSlot.dataExtension, via: temporary, sync: false)
                try directory.writeAtomically(Array(meta.utf8), to: key + "." + PartialSlot.metaExtension, via: temporary, sync: false)
            } catch {
                remove(in: directory)
                DiskCache.addUsage(-(added + replaced), in: version)
                return
            }
            let trimmed = PartialSlot.trim(directory, budget: budget, maxAge: maxAge, keeping: key, now: now)
            DiskCache.addUsage(-(replaced + trimmed), in: version)
        }
    }

    /// Removes what is kept for this download (and subtracts it from the cache's running total).
    public func remove() {
        guard let directory = try? open(create: false) else { return }
        removeCounted(in: directory)
    }

    private func removeCounted(in directory: DirectoryHandle) {
        guard let version = try? DirectoryHandle.open(root, followingLink: false) else { return remove(in: directory) }
        version.withLock(CacheLayout.lockFile) {
            let footprint = PartialSlot.footprint(of: key, in: directory)
            remove(in: directory)
            DiskCache.addUsage(-footprint, in: version)
        }
    }

    private func remove(in directory: DirectoryHandle) {
        directory.remove(key + "." + PartialSlot.metaExtension)
        directory.remove(key + "." + PartialSlot.dataExtension)
    }

    private func open(create: Bool) throws(FileSystem.Failure) -> DirectoryHandle {
        try DirectoryHandle.open(root, followingLink: false).subdirectory(PartialSlot.directoryName, create: create)
    }

    /// `name value` lines after the magic line.
    static func fields(_ bytes: [UInt8]) -> [String: String] {
        guard bytes.count <= 4096 else { return [:] }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == Substring(magic) else { return [:] }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let space = line.firstIndex(of: " ") else { continue }
            fields[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        return fields
    }

    /// A name of `v1/partial/`: `<key>.part` or `<key>.pmeta`.
    static func isPartialName(_ name: String) -> Bool {
        guard let dot = name.firstIndex(of: ".") else { return false }
        let ext = name[name.index(after: dot)...]
        return CacheLayout.isKey(name[..<dot]) && (ext == dataExtension || ext == metaExtension)
    }

    /// Removes partials older than `maxAge` (and parts without a meta, metas without a part), then
    /// the oldest until the rest fit `budget`; `keeping` goes last. Returns the bytes removed.
    @discardableResult
    static func trim(_ directory: DirectoryHandle, budget: Int64, maxAge: Double, keeping: String?, now: Double) -> Int64 {
        var kept: [(key: String, modified: Double, bytes: Int64)] = []
        var removed: Int64 = 0
        let names = Set(directory.list().filter(isPartialName))
        for name in names where name.hasSuffix("." + metaExtension) {
            let key = String(name.prefix(64))
            guard let data = directory.status(key + "." + dataExtension), let meta = directory.status(name),
                  now - meta.modified <= maxAge else {
                removed += footprint(of: key, in: directory)
                directory.remove(name)
                directory.remove(key + "." + dataExtension)
                continue
            }
            kept.append((key, meta.modified, data.size + meta.size))
        }
        for name in names where name.hasSuffix("." + dataExtension) && !names.contains(String(name.prefix(64)) + "." + metaExtension) {
            // A part whose meta is not written yet may be a save in progress: only an old one goes.
            if let status = directory.status(name), now - status.modified > 3600 {
                removed += status.size
                directory.remove(name)
            }
        }
        kept.sort { ($0.key == keeping ? 1 : 0, $0.modified) > ($1.key == keeping ? 1 : 0, $1.modified) }
        var total: Int64 = 0
        for partial in kept {
            total = total.saturatingAdd(partial.bytes)
            if total > budget {
                directory.remove(partial.key + "." + metaExtension)
                directory.remove(partial.key + "." + dataExtension)
                removed += partial.bytes
            }
        }
        return removed
    }
}

extension DiskCache {
    /// Partials are kept a day at most, and take at most an eighth of the size limit (64 MiB
    /// without one) all together.
    static let partialMaxAge: Double = 86_400

    var partialBudget: Int64 { sizeLimit.map { max(0, $0 / 8) } ?? 64 << 20 }

    /// The slot of `key`; nil when the cache directory cannot be made (a download then keeps nothing).
    public func partialSlot(for key: CacheKey) -> PartialSlot? {
        guard (try? createVersion()) != nil else { return nil }   // where the partial goes: made as a store makes it
        return PartialSlot(root: root, key: key.rawValue, maxAge: DiskCache.partialMaxAge, budget: partialBudget)
    }

    /// Removes every partial (`cache clear`, which then writes the total itself), or those older
    /// than a day or beyond the budget (`cache prune`, subtracted from the total); returns the bytes removed.
    @discardableResult
    public func removePartials(all: Bool) -> Int64 {
        guard let version = try? DirectoryHandle.open(root, followingLink: false),
              let directory = try? version.subdirectory(PartialSlot.directoryName) else { return 0 }
        return version.withLock(CacheLayout.lockFile) {
            let removed = PartialSlot.trim(directory, budget: all ? -1 : partialBudget, maxAge: all ? -1 : DiskCache.partialMaxAge,
                                           keeping: nil, now: FileSystem.now())
            if all { for name in directory.list() where PartialSlot.isPartialName(name) { directory.remove(name) } }
            version.removeDirectory(PartialSlot.directoryName)
            if !all { DiskCache.addUsage(-removed, in: version) }
            return removed
        }
    }
}
