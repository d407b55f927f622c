import ImageFetch
#if canImport(Glibc)
import Glibc
#endif

/// Line numbers, one bit each: the lines a prefetch delivered (1M lines in 128 KB).
struct LineSet {
    private var words: [UInt64] = []

    mutating func insert(_ line: Int) {
        guard line >= 0 else { return }
        let word = line >> 6
        if word >= words.count { words += [UInt64](repeating: 0, count: max(word + 1 - words.count, words.count)) }
        words[word] |= 1 << UInt64(line & 63)
    }

    func contains(_ line: Int) -> Bool {
        let word = line >> 6
        return line >= 0 && word < words.count && words[word] & (1 << UInt64(line & 63)) != 0
    }
}

/// `--save-remaining FILE`: every line of this run's share that was not delivered (failed,
/// malformed, cancelled, never started), as written, in list order, to FILE atomically (mode
/// 0600): `imgfetch prefetch FILE` (with the same `--shard`) finishes the job. A list file is read
/// again for it, line by line (bounded memory); from stdin only the lines read are known. A table
/// (CSV, TSV, JSONL) is saved as its header row, then its rows, as written.
enum RemainingLines {
    /// Writes the remaining lines of the list file at `listPath`: the source lines of `shard` not
    /// in `done`, and the malformed ones. A message when it cannot.
    /// A table (`table` given) is read by rows: its header row first, then the rows that remain.
    static func save(to path: String, listPath: String, shard: Shard?, done: LineSet, table: TableSettings? = nil) -> String? {
        let fd = open(listPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "cannot write --save-remaining \(path): cannot read the list \(listPath) again: \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        let file: AtomicFile
        do { file = try AtomicFile(path: path, mode: 0o600) } catch { return "cannot write --save-remaining \(path): \(error.message)" }
        var splitter = RowSplitter(format: table?.format ?? .lines)
        var reading = table.map { TableReading($0) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        func keep(_ line: ListLine) {
            if reading != nil {
                guard remains(line, of: &reading!, shard: shard, done: done) else { return }
            } else {
                guard remains(line, shard: shard, done: done) else { return }
            }
            // A line over the limit was kept as its first bytes only: it is malformed either way.
            file.append(line.bytes + [10])
        }
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                file.discard()
                return "cannot write --save-remaining \(path): cannot read the list \(listPath) again: \(String(cString: strerror(errno)))"
            }
            if n == 0 { break }
            for line in chunk.withUnsafeBytes({ splitter.feed(UnsafeRawBufferPointer(rebasing: $0[..<n])) }) { keep(line) }
        }
        if let last = splitter.finish() { keep(last) }
        do { try file.commit() } catch { return "cannot write --save-remaining \(path): \(error.message)" }
        return nil
    }

    /// Writes lines already known (a list read from stdin): `lines` in line order.
    static func save(to path: String, lines: [(line: Int, text: [UInt8])]) -> String? {
        let file: AtomicFile
        do { file = try AtomicFile(path: path, mode: 0o600) } catch { return "cannot write --save-remaining \(path): \(error.message)" }
        for line in lines.sorted(by: { $0.line < $1.line }) { file.append(line.text + [10]) }
        do { try file.commit() } catch { return "cannot write --save-remaining \(path): \(error.message)" }
        return nil
    }

    /// Whether a table's row is kept: the header, and the rows still to do by this run's share.
    static func remains(_ row: ListLine, of table: inout TableReading, shard: Shard?, done: LineSet) -> Bool {
        switch table.read(row) {
        case .header, .malformed, .unusable: return true
        case .skip: return false
        case .item(let item, _): return !done.contains(row.number) && (shard?.contains(item.source) ?? true)
        }
    }

    /// Whether a line of the list is still to do by this run's share.
    static func remains(_ line: ListLine, shard: Shard?, done: LineSet) -> Bool {
        switch ListParser.parse(line) {
        case .skip: return false
        case .malformed: return true
        case .item(let item): return !done.contains(line.number) && (shard?.contains(item.source) ?? true)
        }
    }
}
