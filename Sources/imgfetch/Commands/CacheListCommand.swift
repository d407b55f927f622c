import ArgumentKit
import ImageFetch

/// `imgfetch cache ls`: streams in key order (the first line after one shard directory is read,
/// memory bounded whatever the cache's size), filtered (`CacheEntryFilter`) as read; `--sort` by
/// another field reads every matching entry first.
enum CacheListCommand {
    static let sortFields = ["key", "age", "size", "source", "access"]

    static func run(_ parsed: ParsedCommand, _ cache: DiskCache) throws(UsageError) -> ExitCode {
        let sort = try parsed[OptionKeys.sort] ?? sortFields[0]
        let filter = try CacheEntryFilter(parsed)
        let json = parsed[OptionKeys.json]
        let output = StreamingOutput()
        let now = filter.now
        if !json { output.write(header) }
        let emit: (CacheEntry) -> Bool = { e in
            output.write(json ? CacheCommands.record(e, cache).text + "\n" : row(e, now: now))
        }
        if sort == "key" {
            cache.forEachEntry { e in !filter.matches(e) || emit(e) }
        } else {
            var entries: [CacheEntry] = []
            cache.forEachEntry { e in
                if filter.matches(e) { entries.append(e) }
                return true
            }
            switch sort {
            case "size": entries.sort { $0.bytes > $1.bytes }
            case "source": entries.sort { ($0.source, $0.variant) < ($1.source, $1.variant) }
            case "access": entries.sort { $0.lastAccess > $1.lastAccess }
            default: entries.sort { $0.created > $1.created }
            }
            for e in entries where !emit(e) { break }
        }
        output.flush()
        return .ok
    }

    /// Fixed column widths, so rows print as they are found; a longer value pushes the rest of its row.
    static let widths = [12, 7, 11, 6, 5, 14, 28]

    static let header = line(["KEY", "SIZE", "DIMS", "FORMAT", "AGE", "EXPIRES", "VARIANT", "SOURCE"])

    static func row(_ e: CacheEntry, now: Double) -> String {
        line([String(e.key.prefix(12)), Formatting.size(e.bytes), "\(e.width)x\(e.height)", e.format,
              Formatting.duration(now - e.created), Formatting.expiry(e, now: now), e.variant, e.source]
            .map(TerminalText.escaped))
    }

    static func line(_ cells: [String]) -> String {
        var out = ""
        for (i, cell) in cells.enumerated() {
            out += cell
            if i < widths.count { out += String(repeating: " ", count: max(0, widths[i] - cell.unicodeScalars.count) + 2) }
        }
        return out + "\n"
    }
}

/// Stdout in 64 KB writes; the first line goes out at once, so a reader sees output immediately.
final class StreamingOutput {
    private var buffer: [UInt8] = []
    private var lines = 0
    private(set) var closed = false

    init() { buffer.reserveCapacity(1 << 16) }

    /// Appends `text`; false once the reader has gone away (EPIPE), so the caller can stop.
    @discardableResult
    func write(_ text: String) -> Bool {
        guard !closed else { return false }
        buffer.append(contentsOf: text.utf8)
        lines += 1
        if lines <= 2 || buffer.count >= 1 << 16 { flush() }
        return !closed
    }

    func flush() {
        guard !buffer.isEmpty, !closed else { return }
        if !Console.write(fd: 1, buffer) { closed = true }
        buffer.removeAll(keepingCapacity: true)
    }
}
