#if canImport(Glibc)
import Glibc
#endif

extension DiskCache {
    var usagePath: String { root + "/" + CacheLayout.usageFile }
    var lockPath: String { root + "/" + CacheLayout.lockFile }
    /// The largest total `v1/usage` may hold; anything else there is ignored (and recounted).
    static let usageLimit: Int64 = 1 << 62

    /// Accounts for a write and, when the hard limit is exceeded, evicts least recently used entries
    /// down to the low-water mark (`DiskCache+Trim.swift`).
    /// The first write of a process reads `v1/usage` (or scans once when it is missing).
    func recordWrite(_ bytes: Int64, keeping key: String, in version: DirectoryHandle) {
        guard let limit = sizeLimit else { return }
        // The running total is shared by every process using the directory: re-read and update it
        // under the lock on each write (a few microseconds), so one process sees another's writes.
        let total: Int64 = version.withLock(CacheLayout.lockFile) {
            let updated: Int64
            if let shared = readUsage(version) {
                updated = shared.saturatingAdd(bytes)
            } else {
                updated = scanTotal(version)  // already includes the entry just written
            }
            writeUsage(updated, version)
            return updated
        }
        if total > limit { evict(toFit: DiskCache.lowWater(of: limit), keeping: key, in: version) }
    }

    /// The running total in `v1/usage`; nil when it is missing, not a regular file, or not a number
    /// in 0...`usageLimit` (it is then recounted, never trusted).
    func readUsage(_ version: DirectoryHandle) -> Int64? {
        guard let (bytes, _) = try? version.read(CacheLayout.usageFile), bytes.count <= 64 else { return nil }
        let text = String(decoding: bytes.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        guard let value = Int64(text), (0...DiskCache.usageLimit).contains(value) else { return nil }
        return value
    }

    /// Rewritten in place (under the lock), not by rename: it is a hint that every full scan corrects,
    /// and a new inode per store costs more than the store's own metadata.
    func writeUsage(_ total: Int64, _ version: DirectoryHandle) {
        let text = String(min(max(total, 0), DiskCache.usageLimit))
        version.overwrite(Array((text + String(repeating: " ", count: max(0, 20 - text.count)) + "\n").utf8), at: CacheLayout.usageFile)
    }

    /// The total footprint, from names and file sizes only (`CacheScan`: no `.meta` is read).
    func scanTotal(_ version: DirectoryHandle) -> Int64 {
        CacheScan(root: root)?.total() ?? 0
    }
}

extension CacheEntry {
    /// Bytes an entry takes on disk, counted for the size limit: the image plus its metadata.
    var footprint: Int64 { bytes.saturatingAdd(512) }
}
