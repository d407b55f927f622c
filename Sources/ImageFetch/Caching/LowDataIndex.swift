/// The low-data index (`v1/lowdata/`): which low-data entry serves a request whose full image is not
/// cached, so that `--offline` and `--cache-only` find it without the low-data options. One small
/// file per request, named by the request's output key, naming the low-data entry's key and the
/// low-data source; written (atomically) when that entry is stored from the low-data source. The
/// entry names the request back (`CacheEntry.lowDataOf`): what removes the entry removes its index
/// (`DiskCache.removeLowDataIndex`), and an index is used only while the entry it names still names
/// it back. Everything read is hostile: at most `maxFileBytes`, a fixed form, keys of 64 hex digits.
public struct LowDataIndex: Sendable {
    public let directory: String
    /// The cache's `v1/tmp/`: a write killed half-way leaves its temporary file where the cache's
    /// cleaning finds it.
    let temporaryDirectory: String
    static let directoryName = "lowdata"
    static let maxFileBytes = 8192
    static let header = "imgfetch-low-data 1"

    /// What one index file says: the low-data entry's key and the low-data source.
    public struct Record: Sendable, Equatable {
        public var key: String
        public var source: String
    }

    init(root: String) {
        directory = root + "/" + LowDataIndex.directoryName
        temporaryDirectory = root + "/" + CacheLayout.temporaryDirectory
    }

    /// The directory is a real one (never a link that would lead the index out of the cache).
    var isUsable: Bool { FileSystem.linkStatus(directory)?.isDirectory == true }

    func path(_ original: String) -> String { directory + "/" + original }

    /// The record for the request whose output key is `original`; nil when none or not valid.
    func read(_ original: String) -> Record? {
        guard CacheLayout.isKey(original), isUsable,
              let bytes = try? FileSystem.readRegular(path(original), maxBytes: LowDataIndex.maxFileBytes),
              let record = LowDataIndex.parse(bytes), record.key != original else { return nil }
        return record
    }

    /// Writes the record of `original` (replacing any); false when it could not.
    @discardableResult
    func write(_ record: Record, for original: String) -> Bool {
        guard CacheLayout.isKey(original), CacheLayout.isKey(record.key), LowDataIndex.isSourceText(record.source),
              (try? FileSystem.makeDirectories(directory)) != nil, isUsable,
              FileSystem.linkStatus(temporaryDirectory)?.isDirectory == true else { return false }
        let text = LowDataIndex.header + "\n" + record.key + "\n" + record.source + "\n"
        return (try? FileSystem.writeAtomically(Array(text.utf8), to: path(original), temporaryDirectory: temporaryDirectory,
                                                 sync: false)) != nil
    }

    /// Removes the index of `original` when it names `key` (another entry's index stays).
    func remove(_ original: String, naming key: String) {
        guard CacheLayout.isKey(original), isUsable else { return }
        let bytes = try? FileSystem.readRegular(path(original), maxBytes: LowDataIndex.maxFileBytes)
        if let record = bytes.flatMap(LowDataIndex.parse), record.key != key { return }
        _ = FileSystem.remove(path(original))
    }

    /// The names of the directory's index files (others are left alone).
    func names() -> [String] { isUsable ? FileSystem.list(directory).filter(CacheLayout.isKey) : [] }

    /// The form `write` makes, else nil.
    static func parse(_ bytes: [UInt8]) -> Record? {
        let lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard lines.count == 4, lines[0] == header, lines[3].isEmpty, CacheLayout.isKey(lines[1]), isSourceText(lines[2]) else { return nil }
        return Record(key: lines[1], source: lines[2])
    }

    /// An http(s) URL of at most 4096 bytes without control characters.
    static func isSourceText(_ text: String) -> Bool {
        (text.hasPrefix("http://") || text.hasPrefix("https://")) && text.utf8.count <= 4096
            && text.unicodeScalars.allSatisfy { $0.value >= 32 && $0.value != 127 }
    }
}
