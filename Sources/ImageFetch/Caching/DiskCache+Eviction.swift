#if canImport(Glibc)
import Glibc
#endif

extension DiskCache {
    var usagePath: String { root + "/usage" }
    var lockPath: String { root + "/lock" }

    /// Accounts for a write and evicts least recently used entries when the hard limit is exceeded.
    /// The first write of a process reads `v1/usage` (or scans once when it is missing).
    func recordWrite(_ bytes: Int64, keeping key: String) {
        guard let limit = sizeLimit else { return }
        // The running total is shared by every process using the directory: re-read and update it
        // under the lock on each write (a few microseconds), so one process sees another's writes.
        let total: Int64 = FileSystem.withLock(lockPath) {
            let updated: Int64
            if let shared = readUsage() {
                updated = shared + bytes
            } else {
                updated = scanTotal()  // already includes the entry just written
            }
            writeUsage(updated)
            return updated
        }
        if total > limit { _ = evict(toFit: limit, keeping: key) }
    }

    /// Evicts least recently used entries until the cache holds at most `limit` bytes
    /// (never the entry `keeping`, which was just written). Returns the entries removed.
    @discardableResult
    public func evict(toFit limit: Int64, keeping key: String? = nil) -> [CacheEntry] {
        FileSystem.withLock(lockPath) {
            var entries = allEntries()
            var total = entries.reduce(Int64(0)) { $0 + $1.footprint }
            var removed: [CacheEntry] = []
            if total > limit {
                entries.sort { $0.lastAccess < $1.lastAccess }
                for entry in entries where total > limit && entry.key != key {
                    if remove(entry) {
                        total -= entry.footprint
                        removed.append(entry)
                    }
                }
            }
            writeUsage(total)
            return removed
        }
    }

    func readUsage() -> Int64? {
        guard let bytes = try? FileSystem.read(usagePath) else { return nil }
        return Int64(String(decoding: bytes.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") }, as: UTF8.self))
    }

    /// Rewritten in place (under the lock), not by rename: it is a hint that every full scan corrects,
    /// and a new inode per store costs more than the store's own metadata.
    func writeUsage(_ total: Int64) {
        let text = String(total)
        FileSystem.overwrite(Array((text + String(repeating: " ", count: max(0, 20 - text.count)) + "\n").utf8), at: usagePath)
    }

    func scanTotal() -> Int64 { allEntries().reduce(0) { $0 + $1.footprint } }
}

extension CacheEntry {
    /// Bytes an entry takes on disk, counted for the size limit: the image plus its metadata.
    var footprint: Int64 { bytes + 512 }
}
