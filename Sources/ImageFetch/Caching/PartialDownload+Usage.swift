/// Partial downloads in the size limit: their footprint (the `.part` and `.pmeta` files' sizes) is
/// in the running total `v1/usage` like an entry's, and eviction takes them first, oldest first,
/// before any entry (a download that ended early is worth less than an image kept).
extension PartialSlot {
    /// The footprint of the partial kept for `key` (0 when there is none).
    static func footprint(of key: String, in directory: DirectoryHandle) -> Int64 {
        let part = directory.status(key + "." + dataExtension).map { max(0, $0.size) } ?? 0
        let meta = directory.status(key + "." + metaExtension).map { max(0, $0.size) } ?? 0
        return part.saturatingAdd(meta)
    }

    /// The footprint of every partial in the open `v1` (0 without `v1/partial`).
    static func footprint(in version: DirectoryHandle) -> Int64 {
        guard let directory = try? version.subdirectory(directoryName) else { return 0 }
        var total: Int64 = 0
        for name in directory.list() where isPartialName(name) {
            if let status = directory.status(name), status.isRegular { total = total.saturatingAdd(max(0, status.size)) }
        }
        return total
    }

    /// With the lock held: removes partials, oldest first, until `needed` bytes are freed (or none is
    /// left); returns the bytes freed. The caller subtracts them from the total.
    static func trimOldest(in version: DirectoryHandle, freeing needed: Int64) -> Int64 {
        guard needed > 0, let directory = try? version.subdirectory(directoryName) else { return 0 }
        var keys: [(key: String, modified: Double)] = []
        for name in Set(directory.list().filter(isPartialName).map { String($0.prefix(64)) }) {
            let modified = directory.status(name + "." + metaExtension)?.modified ?? -Double.infinity
            keys.append((name, modified))
        }
        keys.sort { $0.modified < $1.modified }
        var freed: Int64 = 0
        for entry in keys where freed < needed {
            let footprint = footprint(of: entry.key, in: directory)
            directory.remove(entry.key + "." + metaExtension)
            directory.remove(entry.key + "." + dataExtension)
            freed = freed.saturatingAdd(footprint)
        }
        return freed
    }
}

extension DiskCache {
    /// With the lock held, when `usage` is over `limit`: partials go first (`trimOldest`). Returns
    /// the total after them, which the caller writes.
    func trimPartials(toFit limit: Int64, usage: Int64, in version: DirectoryHandle) -> Int64 {
        guard usage > limit else { return usage }
        return max(0, usage - PartialSlot.trimOldest(in: version, freeing: usage - limit))
    }
}
