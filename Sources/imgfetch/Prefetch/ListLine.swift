// Compiled into the imgfetch executable, and with the library's sources into the fuzz targets.
#if canImport(ImageFetch)
import ImageFetch
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One line of a prefetch list, as bytes: without its line end (LF, or CRLF from Windows and
/// spreadsheets) and, on line 1, without a UTF-8 byte order mark.
public struct ListLine: Sendable, Equatable {
    /// The longest line kept, in bytes (64 KiB); a longer one is malformed.
    public static let maxLength = 65_536

    /// 1-based line number in the list.
    public var number: Int
    /// The line's bytes; for a line longer than `maxLength`, only its first bytes.
    public var bytes: [UInt8]
    /// True when the line was longer than `maxLength` (the rest of it was skipped unread).
    public var isTooLong: Bool

    public init(number: Int, bytes: [UInt8], isTooLong: Bool = false) {
        self.number = number
        self.bytes = bytes
        self.isTooLong = isTooLong
    }

    public init(number: Int, _ text: String) { self.init(number: number, bytes: Array(text.utf8)) }
}

/// Splits a byte stream into list lines as its chunks arrive, in bounded memory: at most
/// `maxLength` bytes of the current line are held; a longer line is returned at once as too long
/// (with its first bytes) and the rest of it is skipped up to the next LF.
public struct ListLineSplitter: Sendable {
    /// How many bytes of a too-long line are kept (for the message naming it).
    public static let excerptLength = 48

    private let maxLength: Int
    private var partial: [UInt8] = []
    private var skipping = false
    private var lineNumber = 0

    public init(maxLength: Int = ListLine.maxLength) { self.maxLength = max(1, maxLength) }

    /// The lines completed by `chunk`, in order.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer) -> [ListLine] {
        var lines: [ListLine] = []
        let bytes = chunk.bindMemory(to: UInt8.self)
        var start = 0
        while start < bytes.count {
            let base = bytes.baseAddress!
            let newline = memchr(base + start, 10, bytes.count - start)
                .map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) }
            let end = newline ?? bytes.count
            if !skipping {
                if partial.count + (end - start) > maxLength {
                    // Keep only what the message shows; the rest of the line is skipped, never stored.
                    let room = max(0, ListLineSplitter.excerptLength - partial.count)
                    partial.append(contentsOf: bytes[start..<min(end, start + room)])
                    lines.append(complete(tooLong: true))
                    skipping = newline == nil
                } else {
                    partial.append(contentsOf: bytes[start..<end])
                    if newline != nil { lines.append(complete(tooLong: false)) }
                }
            } else if newline != nil {
                skipping = false
            }
            start = end + 1
        }
        return lines
    }

    /// The same, for an array of bytes.
    public mutating func feed(_ chunk: [UInt8]) -> [ListLine] {
        chunk.withUnsafeBytes { feed($0) }
    }

    /// The last line when the stream ends without a final line end; nil otherwise.
    public mutating func finish() -> ListLine? {
        defer { skipping = false }
        guard !skipping, !partial.isEmpty else { return nil }
        return complete(tooLong: false)
    }

    private mutating func complete(tooLong: Bool) -> ListLine {
        lineNumber += 1
        var bytes = tooLong ? Array(partial.prefix(ListLineSplitter.excerptLength)) : partial
        partial.removeAll(keepingCapacity: !tooLong && bytes.count <= 4096)
        if lineNumber == 1, bytes.starts(with: ListLineSplitter.byteOrderMark) { bytes.removeFirst(3) }
        if !tooLong { while bytes.last == 13 { bytes.removeLast() } }
        return ListLine(number: lineNumber, bytes: bytes, isTooLong: tooLong)
    }

    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
}

/// Counts the lines of a list that hold a source (not blank, not a `#` comment), as `ListParser`
/// reads them, in constant memory: the progress bar's total. Feed it chunks, then read `count`.
public struct ListSourceCounter: Sendable {
    private enum State { case lineStart, counted, comment }
    private var state = State.lineStart
    /// Bytes of a byte order mark matched at the start; nil once the start is past.
    private var markMatched: Int? = 0
    public private(set) var count = 0

    public init() {}

    public mutating func feed(_ chunk: UnsafeRawBufferPointer) {
        for byte in chunk {
            if let matched = markMatched {
                if byte == ListLineSplitter.byteOrderMark[matched] {
                    markMatched = matched + 1 == 3 ? nil : matched + 1
                    continue
                }
                markMatched = nil
                // A partial mark is text: line 1 holds a source.
                if matched > 0 { count += 1; state = .counted }
            }
            switch state {
            case .lineStart:
                switch byte {
                case 10, 32, 9, 13: break
                case 35: state = .comment   // '#'
                default: count += 1; state = .counted
                }
            case .counted, .comment:
                if byte == 10 { state = .lineStart }
            }
        }
    }
}
