#if canImport(Glibc)
import Glibc
#endif

/// The eviction candidates, `v1/evict`: the entries a scan found least worth keeping, in the order
/// they go (lowest `CacheEntry.Kept` tier first, least recently used first within a tier), so that a
/// store over the limit deletes a few of them instead of scanning the cache.
///
/// ```
/// imgfetch-evict 2 <cursor> <count> <first requested>\n      a 56-byte header, numbers 12 digits
/// <key> <tier> <footprint> <last access> <extension>\n       count records of 106 bytes
/// ```
/// Footprint and last access are 16 hex digits (the access time is a `Double`'s bit pattern, so it
/// compares exactly with the image's mtime); the extension is the image file's, padded with `-` to
/// 4 (`----`: not one image file, every extension is tried), so that a removal looks up two names,
/// not one per image format. The cursor (records before it are gone) is rewritten in
/// place under the cache's lock, and so is the count when a newer by-product cuts the list to its
/// by-products; the file itself is replaced by rename, so it is one scan's list.
///
/// The file is a hint, read as hostile: a header or record that does not parse, a count the size
/// cannot hold, anything beyond `maxCandidates` makes the whole list void (rebuilt by the
/// next scan). A listed key only names files of the entry layout, and an entry is removed only when
/// it is no more recently used, and in no higher tier, than the scan recorded (`removeCandidate`):
/// a planted list can remove nothing a full LRU eviction would not.
struct EvictionCandidates {
    struct Record: Equatable {
        var key: String
        var tier: UInt8
        var footprint: Int64
        var lastAccess: Double
        /// The image file's extension; "" when unknown (every image extension is tried).
        var ext: String = ""

        /// The record of a scanned entry.
        init(key: String, tier: UInt8, footprint: Int64, lastAccess: Double, ext: String = "") {
            self.key = key
            self.tier = tier
            self.footprint = footprint
            self.lastAccess = lastAccess
            self.ext = ext
        }

        init(_ e: CacheScan.Entry) {
            let ext = e.dataNames.count == 1 ? e.dataNames[0].split(separator: ".").last.map(String.init) ?? "" : ""
            self.init(key: e.key, tier: e.tier, footprint: e.footprint, lastAccess: e.lastAccess,
                      ext: ext.utf8.count <= 4 && CacheLayout.imageExtensions.contains(ext) ? ext : "")
        }

        /// The image files a removal looks for.
        var imageNames: [String] {
            ext.isEmpty ? CacheLayout.imageExtensions.map { key + "." + $0 } : [key + "." + ext]
        }
    }

    static let magic = "imgfetch-evict 2 "
    static let headerSize = 56
    static let recordSize = 106
    /// At most this many records (a 6.6 MB file): a cycle that needs more scans again sooner.
    static let maxCandidates = 65_536

    var cursor: Int
    var count: Int
    /// The index of the first record of the `requested` tier (`count` when there is none).
    var firstRequested: Int

    static func header(cursor: Int, count: Int, firstRequested: Int) -> [UInt8] {
        Array((magic + digits(cursor) + " " + digits(count) + " " + digits(firstRequested) + "\n").utf8)
    }

    static func digits(_ n: Int) -> String {
        let text = String(max(0, n))
        return String(repeating: "0", count: max(0, 12 - text.count)) + text
    }

    /// Where the cursor and the count fields start (12 digits each).
    static let cursorOffset = magic.utf8.count
    static let countOffset = cursorOffset + 13

    /// The file sizes a list may have: its records may be fewer than the file holds (a list cut to
    /// its by-products), never more, and never more than `maxCandidates`.
    static func isPlausible(size: Int64, count: Int) -> Bool {
        size >= Int64(headerSize + count * recordSize) && size <= Int64(headerSize + maxCandidates * recordSize)
            && (size - Int64(headerSize)) % Int64(recordSize) == 0
    }

    /// The header of a file of `size` bytes; nil unless it is exactly one of ours.
    static func parseHeader(_ bytes: [UInt8], size: Int64) -> EvictionCandidates? {
        guard bytes.count >= headerSize, bytes.starts(with: Array(magic.utf8)), bytes[headerSize - 1] == UInt8(ascii: "\n") else { return nil }
        func number(_ at: Int) -> Int? {
            let field = bytes[at..<(at + 12)]
            guard field.allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int(String(decoding: field, as: UTF8.self))
        }
        let start = cursorOffset
        guard bytes[start + 12] == UInt8(ascii: " "), bytes[start + 25] == UInt8(ascii: " "),
              let cursor = number(start), let count = number(start + 13), let first = number(start + 26),
              count <= maxCandidates, cursor <= count, first <= count,
              isPlausible(size: size, count: count) else { return nil }
        return EvictionCandidates(cursor: cursor, count: count, firstRequested: first)
    }

    static func encode(_ r: Record) -> [UInt8] {
        var line = r.key + " " + String(r.tier) + " "
        line += hex16(UInt64(max(0, r.footprint))) + " " + hex16(r.lastAccess.bitPattern) + " "
        line += r.ext + String(repeating: "-", count: max(0, 4 - r.ext.utf8.count)) + "\n"
        return Array(line.utf8)
    }

    static func hex16(_ v: UInt64) -> String {
        let text = String(v, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    /// The records in `bytes` (a whole number of them); nil when any does not parse.
    static func parseRecords(_ bytes: [UInt8]) -> [Record]? {
        guard let batch = RecordBatch(bytes) else { return nil }
        var out: [Record] = []
        out.reserveCapacity(batch.count)
        for i in 0..<batch.count {
            guard let record = batch.record(i) else { return nil }
            out.append(record)
        }
        return out
    }

    /// Records as read, each parsed when it is needed (a store usually needs one of a batch).
    struct RecordBatch {
        let bytes: [UInt8]
        var count: Int { bytes.count / recordSize }

        /// nil unless `bytes` is a whole number of records.
        init?(_ bytes: [UInt8]) {
            guard bytes.count % recordSize == 0 else { return nil }
            self.bytes = bytes
        }

        /// Record `i`; nil when it does not parse.
        func record(_ i: Int) -> Record? {
            let line = bytes[(i * recordSize)..<((i + 1) * recordSize)]
            let key = String(decoding: line.prefix(64), as: UTF8.self)
            let b = line.startIndex
            let ext = String(decoding: line[(b + 101)..<(b + 105)].filter { $0 != UInt8(ascii: "-") }, as: UTF8.self)
            guard CacheLayout.isKey(key), line[b + 64] == 32, line[b + 66] == 32, line[b + 83] == 32, line[b + 100] == 32,
                  line[b + 105] == 10, ext.isEmpty || CacheLayout.imageExtensions.contains(ext),
                  let tier = UInt8(String(decoding: line[(b + 65)...(b + 65)], as: UTF8.self)), tier <= 9,
                  let footprint = UInt64(String(decoding: line[(b + 67)..<(b + 83)], as: UTF8.self), radix: 16),
                  let access = UInt64(String(decoding: line[(b + 84)..<(b + 100)], as: UTF8.self), radix: 16),
                  footprint <= UInt64(CacheEntry.maxBytes) + 512 else { return nil }
            let lastAccess = Double(bitPattern: access)
            guard CacheEntry.isTime(lastAccess) else { return nil }
            return Record(key: key, tier: tier, footprint: Int64(footprint), lastAccess: lastAccess, ext: ext)
        }
    }
}

extension DiskCache {
    /// Temporary files and images without metadata younger than this are writes in flight;
    /// older ones are leftovers of killed writers (removed by `cache prune` and `verify --repair`).
    static let inFlightAge: Double = 3600

    /// Whether `v1/tmp` holds a temporary file younger than `inFlightAge`: a store counted but not
    /// yet committed.
    func writesInFlight(_ version: DirectoryHandle) -> Bool {
        guard let temporary = try? version.subdirectory(CacheLayout.temporaryDirectory) else { return false }
        let recent = FileSystem.now() - DiskCache.inFlightAge
        return temporary.list().contains { CacheLayout.isTemporary($0) && (temporary.status($0)?.modified ?? 0) >= recent }
    }

    /// The candidate list's header in `version`; nil when it is absent or void.
    func candidateHeader(_ version: DirectoryHandle) -> EvictionCandidates? {
        guard let (bytes, size) = version.read(CacheLayout.candidatesFile, offset: 0, count: EvictionCandidates.headerSize) else { return nil }
        return EvictionCandidates.parseHeader(bytes, size: size)
    }

    /// The header and up to `limit` records from its cursor on; nil when the list is absent or void.
    func candidateBatch(_ version: DirectoryHandle, limit: Int) -> (EvictionCandidates, EvictionCandidates.RecordBatch)? {
        guard let (bytes, fileSize) = version.read(CacheLayout.candidatesFile, offset: 0, count: EvictionCandidates.headerSize),
              let header = EvictionCandidates.parseHeader(bytes, size: fileSize) else { return nil }
        guard let records = candidateRecords(version, header, limit: limit) else { return nil }
        return (header, records)
    }

    /// Up to `limit` records from the cursor on; nil when the list is void (or changed size under us).
    func candidateRecords(_ version: DirectoryHandle, _ header: EvictionCandidates, limit: Int) -> EvictionCandidates.RecordBatch? {
        let n = min(limit, header.count - header.cursor)
        guard n > 0 else { return EvictionCandidates.RecordBatch([]) }
        let offset = EvictionCandidates.headerSize + header.cursor * EvictionCandidates.recordSize
        guard let (bytes, size) = version.read(CacheLayout.candidatesFile, offset: offset, count: n * EvictionCandidates.recordSize),
              EvictionCandidates.isPlausible(size: size, count: header.count) else { return nil }
        return EvictionCandidates.RecordBatch(bytes)
    }

    /// Scans the cache (names and stat, `CacheScan`) WITHOUT the lock and persists the candidates
    /// that free `needed` bytes (at most `maxCandidates`), then, under the lock for a rename and one
    /// number, replaces the list and, when nothing changed the total meanwhile, sets `v1/usage` to
    /// what the scan counted. Returns the scan's total footprint, nil when the cache cannot be read.
    @discardableResult
    func rebuildCandidates(_ version: DirectoryHandle, needed: (Int64) -> Int64, keeping key: String?) -> Int64? {
        // `keeping`: the entry being stored, which this store must not remove.
        guard let scan = CacheScan(root: root) else { return nil }
        // The generation of the total when the scan starts, when the scan may replace the total: a
        // store counted before this point and still in flight (its temporary file in `v1/tmp`, or its
        // image renamed and its metadata not yet, an orphan the scan sees) rules it out.
        let start: Usage? = version.withLock(CacheLayout.lockFile) {
            let current = readUsage(version)
            return current?.generation == nil || writesInFlight(version) ? nil : current
        }
        var orphans = false
        let recent = FileSystem.now() - DiskCache.inFlightAge
        // The oldest `maxCandidates` by (tier, last access), kept in a bounded max-heap: memory stays
        // bounded however large the cache is.
        var heap = CandidateHeap(capacity: EvictionCandidates.maxCandidates)
        var total = PartialSlot.footprint(in: version), keptFootprint: Int64 = 0   // partials count too
        scan.forEachEntry(orphan: { if $0 >= recent { orphans = true } }) { _, e in
            total = saturatingAdd(total, e.footprint)
            // The entry being stored is listed too (the store skips it, the next may take it), but
            // does not count towards what this list frees.
            if e.key == key { keptFootprint = e.footprint }
            heap.offer(EvictionCandidates.Record(e))
        }
        var records = heap.sorted()
        let want = saturatingAdd(needed(total), keptFootprint)
        var covered: Int64 = 0, take = 0
        while take < records.count && covered < want { covered = saturatingAdd(covered, records[take].footprint); take += 1 }
        records.removeSubrange(take...)
        let firstRequested = records.firstIndex { $0.tier >= CacheEntry.Kept.requested.tier } ?? records.count
        var file = EvictionCandidates.header(cursor: 0, count: records.count, firstRequested: firstRequested)
        file.reserveCapacity(file.count + records.count * EvictionCandidates.recordSize)
        for r in records { file += EvictionCandidates.encode(r) }
        guard let temporary = try? version.subdirectory(CacheLayout.temporaryDirectory, create: true),
              let staged = try? version.stage(file, in: temporary, sync: false) else { return total }
        version.withLock(CacheLayout.lockFile) {
            version.commit(staged, from: temporary, to: CacheLayout.candidatesFile)
            // The scan's count replaces the total only when no store or eviction wrote it while the
            // scan ran (the same generation) and no store was in flight when it started (above) or
            // seen half-committed by it (`orphans`). Else the total stays: it never counts too little.
            // (Without a total at all, the scan's count is all there is.)
            let current = readUsage(version)
            if let start, current == start, !orphans {
                replaceUsage(total, after: current, version)
            } else if current == nil {
                replaceUsage(total, after: nil, version)
            }
        }
        return total
    }
}

/// A bounded max-heap of candidate records by (tier, last access): `offer` keeps the `capacity`
/// lowest; `sorted` returns them lowest first.
struct CandidateHeap {
    let capacity: Int
    private var items: [EvictionCandidates.Record] = []

    init(capacity: Int) { self.capacity = capacity }

    static func before(_ a: EvictionCandidates.Record, _ b: EvictionCandidates.Record) -> Bool {
        a.tier != b.tier ? a.tier < b.tier : a.lastAccess < b.lastAccess
    }

    mutating func offer(_ r: EvictionCandidates.Record) {
        if items.count < capacity {
            items.append(r)
            var i = items.count - 1
            while i > 0 {
                let parent = (i - 1) / 2
                guard CandidateHeap.before(items[parent], items[i]) else { break }
                items.swapAt(parent, i)
                i = parent
            }
        } else if let top = items.first, CandidateHeap.before(r, top) {
            items[0] = r
            var i = 0
            while true {
                let l = 2 * i + 1, rr = l + 1
                var largest = i
                if l < items.count && CandidateHeap.before(items[largest], items[l]) { largest = l }
                if rr < items.count && CandidateHeap.before(items[largest], items[rr]) { largest = rr }
                if largest == i { break }
                items.swapAt(i, largest)
                i = largest
            }
        }
    }

    func sorted() -> [EvictionCandidates.Record] { items.sorted(by: CandidateHeap.before) }
}
