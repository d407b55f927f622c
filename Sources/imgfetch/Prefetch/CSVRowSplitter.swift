import ImageFetch

/// Splits a CSV byte stream (RFC 4180) into rows as its chunks arrive: a row ends at a line end
/// outside double quotes, so a quoted field may hold line breaks. Bounded memory: at most
/// `maxLength` bytes of a row are held; a longer row (a "CSV bomb", one 1 GB field) is read past
/// without being stored and returned, once it ends, as too long with its first bytes. Each row is
/// returned as written, without its line end (LF or CRLF) and, on row 1, without a byte order mark.
struct CSVRowSplitter: Sendable {
    private let maxLength: Int
    private var partial: [UInt8] = []
    /// Where the scan is in the current row: a row ends at a line end outside a quoted field. A quote
    /// opens a quoted field only at its start (one inside an unquoted field is the field parser's error).
    private enum State { case fieldStart, unquoted, quoted, quoteInQuoted }
    private var state = State.fieldStart
    private var tooLong = false
    private var rowNumber = 0

    init(maxLength: Int = ListLine.maxLength) { self.maxLength = max(1, maxLength) }

    /// The rows completed by `chunk`, in order.
    mutating func feed(_ chunk: UnsafeRawBufferPointer) -> [ListLine] {
        var rows: [ListLine] = []
        var start = 0
        var index = 0
        let count = chunk.count
        while index < count {
            let byte = chunk[index]
            switch state {
            case .quoted:
                if byte == 34 { state = .quoteInQuoted }
            case .fieldStart, .unquoted, .quoteInQuoted:
                if byte == 10 {
                    take(chunk, from: start, to: index)
                    rows.append(complete())
                    start = index + 1
                } else if byte == 44 {
                    state = .fieldStart
                } else if byte == 34 && state != .unquoted {
                    state = .quoted   // an opening quote, or the second of a doubled one
                } else {
                    state = .unquoted
                }
            }
            index += 1
        }
        take(chunk, from: start, to: count)
        return rows
    }

    /// The last row when the stream ends without a final line end (or inside an open quote).
    mutating func finish() -> ListLine? {
        guard !partial.isEmpty || tooLong else { return nil }
        return complete()
    }

    /// Keeps `chunk[from..<to]` of the current row, up to `maxLength` bytes.
    private mutating func take(_ chunk: UnsafeRawBufferPointer, from: Int, to: Int) {
        guard to > from, !tooLong else { return }
        if partial.count + (to - from) > maxLength {
            let room = max(0, ListLineSplitter.excerptLength - partial.count)
            partial.removeSubrange(min(partial.count, ListLineSplitter.excerptLength)...)
            partial.append(contentsOf: chunk[from..<min(to, from + room)])
            tooLong = true
        } else {
            partial.append(contentsOf: chunk[from..<to])
        }
    }

    private mutating func complete() -> ListLine {
        rowNumber += 1
        var bytes = partial
        partial.removeAll(keepingCapacity: !tooLong && bytes.count <= 4096)
        if rowNumber == 1, bytes.starts(with: ListLineSplitter.byteOrderMark) { bytes.removeFirst(3) }
        if !tooLong, bytes.last == 13 { bytes.removeLast() }
        let row = ListLine(number: rowNumber, bytes: bytes, isTooLong: tooLong)
        tooLong = false
        state = .fieldStart
        return row
    }
}

/// The splitter a list's format reads with: lines (also TSV and JSONL, one row a line) or CSV rows.
/// Each is mutated in place (an enum's payload would be copied, and its buffer with it, per chunk).
struct RowSplitter: Sendable {
    private var lines: ListLineSplitter?
    private var csv: CSVRowSplitter?

    init(format: ListFormat) {
        if format == .csv { csv = CSVRowSplitter() } else { lines = ListLineSplitter() }
    }

    mutating func feed(_ chunk: UnsafeRawBufferPointer) -> [ListLine] {
        csv != nil ? csv!.feed(chunk) : lines!.feed(chunk)
    }

    mutating func finish() -> ListLine? {
        csv != nil ? csv!.finish() : lines!.finish()
    }
}
