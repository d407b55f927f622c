#if canImport(Glibc)
import Glibc
#endif

extension DiskCache {
    var usagePath: String { root + "/usage" }
    var lockPath: String { root + "/lock" }

    /// Accounts for a write and, when the hard limit is exceeded, evicts least recently used entries
    /// down to the low-water mark (`DiskCache+Trim.swift`).
    /// The first write of a process reads `v1/usage` (or scans once when it is missing).
    func recordWrite(_ bytes: Int64, keeping key: String) {
        guard let limit = sizeLimit else { return }
        // The running total is shared by every process using the directory: re-read and update it
        // under the lock on each write (a few microseconds), so one process sees another's writes.
        let total: Int64 = FileSystem.withLock(lockPath) {
            let updated: Int64
            if let shared = readUsage() {
                updated = saturatingAdd(shared, bytes)
            } else {
                updated = scanTotal()  // already includes the entry just written
            }
            writeUsage(updated)
            return updated
        }
        if total > limit { evict(toFit: DiskCache.lowWater(of: limit), keeping: key) }
    }

    func readUsage() -> Int64? {
        guard let bytes = try? FileSystem.read(usagePath) else { return nil }
        // A negative total (a foreign or corrupted file) would disable eviction: rescan instead.
        guard let total = Int64(String(decoding: bytes.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)),
              total >= 0 else { return nil }
        return total
    }

    /// Rewritten in place (under the lock), not by rename: it is a hint that every full scan corrects,
    /// and a new inode per store costs more than the store's own metadata.
    func writeUsage(_ total: Int64) {
        let text = String(total)
        FileSystem.overwrite(Array((text + String(repeating: " ", count: max(0, 20 - text.count)) + "\n").utf8), at: usagePath)
    }

    func scanTotal() -> Int64 { CacheScan(root: root)?.total() ?? 0 }
}

extension CacheEntry {
    /// Bytes an entry takes on disk, counted for the size limit: the image plus its metadata.
    var footprint: Int64 { bytes + 512 }
}
