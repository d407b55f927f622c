/// The running total of the size limit, `v1/usage`: the cache's footprint (`CacheEntry.footprint`
/// of every entry, and of every store counted but not yet committed) and a generation.
///
/// ```
/// <total, padded to 20> g<generation, padded to 20>\n       43 bytes, rewritten in place
/// ```
/// Every write of the total (a store's count, an eviction's removal, a scan's count) is made under
/// the cache's lock and advances the generation. A scan that runs without the lock
/// (`rebuildCandidates`) notes the generation when it starts and replaces the total by its own count
/// only when the generation is the same when it ends: nothing was counted or removed meanwhile. A
/// total without a generation (an older build's: the number alone, which is still read) is never
/// replaced so. Builds before the generation read this file as no number and count the cache again.
///
/// The invariant every writer keeps: the total is never less than what the cache holds, so a total
/// at or under the limit means the cache is. A process killed anywhere can only leave it higher
/// (a store counted, never committed; an eviction's deletions made, its total not yet written).
extension DiskCache {
    struct Usage: Equatable {
        var total: Int64
        /// nil for a total written by a build before the generation.
        var generation: Int64?

        /// The record that replaces this one: `total`, the next generation.
        func next(_ total: Int64) -> Usage {
            Usage(total: total, generation: ((generation ?? 0) + 1) % DiskCache.generationModulus)
        }
    }

    /// Generations wrap here (a scan compares two for equality only).
    static let generationModulus: Int64 = 1_000_000_000_000_000_000

    /// The record in `v1/usage`; nil when it is missing, not a regular file, or not a total in
    /// 0...`usageLimit` with an optional generation (it is then recounted, never trusted).
    func readUsage(_ version: DirectoryHandle) -> Usage? { DiskCache.usage(in: version) }

    static func usage(in version: DirectoryHandle) -> Usage? {
        guard let (bytes, _) = try? version.read(CacheLayout.usageFile), bytes.count <= 64 else { return nil }
        let fields = bytes.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
        guard fields.count == 1 || fields.count == 2,
              let total = Int64(String(decoding: fields[0], as: UTF8.self)), (0...DiskCache.usageLimit).contains(total) else { return nil }
        guard fields.count == 2 else { return Usage(total: total, generation: nil) }
        let tag = fields[1]
        guard tag.first == UInt8(ascii: "g"), let generation = Int64(String(decoding: tag.dropFirst(), as: UTF8.self)),
              (0..<DiskCache.generationModulus).contains(generation) else { return nil }
        return Usage(total: total, generation: generation)
    }

    /// The total alone (what a command's end compares with the limit).
    func readTotal(_ version: DirectoryHandle) -> Int64? { readUsage(version)?.total }

    /// Writes `usage`, with the lock held. Rewritten in place, not by rename: a new inode per store
    /// costs more than the store's own metadata; fixed width, so a reader never sees two lengths.
    func writeUsage(_ usage: Usage, _ version: DirectoryHandle) { DiskCache.write(usage, in: version) }

    static func write(_ usage: Usage, in version: DirectoryHandle) {
        func padded(_ n: Int64) -> String {
            let text = String(n)
            return text + String(repeating: " ", count: max(0, 20 - text.count))
        }
        let total = min(max(usage.total, 0), DiskCache.usageLimit)
        version.overwrite(Array((padded(total) + " g" + padded(usage.generation ?? 0) + "\n").utf8), at: CacheLayout.usageFile)
    }

    /// With the lock held: replaces the record (`current`, as read) by `total`, a new generation.
    func replaceUsage(_ total: Int64, after current: Usage?, _ version: DirectoryHandle) {
        writeUsage((current ?? Usage(total: 0, generation: nil)).next(total), version)
    }

    /// With the lock held: moves the total by `delta` (a partial download's footprint: added before
    /// it is written, subtracted after it is removed). Without a total, nothing: the count that makes
    /// one (`scanTotal`, a candidate scan) includes the partials.
    static func addUsage(_ delta: Int64, in version: DirectoryHandle) {
        guard delta != 0, let current = usage(in: version) else { return }
        write(current.next(max(0, current.total.saturatingAdd(delta))), in: version)
    }

    /// The total footprint, from names and file sizes only (`CacheScan`: no `.meta` is read), partial
    /// downloads included.
    func scanTotal(_ version: DirectoryHandle) -> Int64 {
        (CacheScan(root: root)?.total() ?? 0).saturatingAdd(PartialSlot.footprint(in: version))
    }
}
