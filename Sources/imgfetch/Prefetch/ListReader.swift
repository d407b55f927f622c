// Compiled into the imgfetch executable, and with the library's sources into the fuzz targets.
#if canImport(ImageFetch)
import ImageFetch
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// Streams the lines of a list file or stdin as they arrive, on a thread outside Swift's cooperative
/// pool (a slow pipe never blocks the pipeline's threads). Memory holds one 64 KiB read and at most
/// `ListLine.maxLength` bytes of an unfinished line, whatever the list (`/dev/zero` included).
public final class ListReader: @unchecked Sendable {
    // @unchecked: `splitter`, `ended`, `buffer` and `failure` are only touched inside `queue`, a
    // serial queue; `fd` is immutable.
    private let fd: Int32
    private let queue = DispatchQueue(label: "imgfetch.list-reader")
    private var splitter: RowSplitter
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var ended = false
    private var failure: String?

    /// True when the list is a regular file (it can be counted ahead without consuming it).
    public let isRegularFile: Bool
    /// Reads of a pipe or terminal waiting for input now (0 or 1).
    private let waits = Atomic<Int>(0)
    /// True while a read waits for the next bytes of a list that is not a regular file (a run
    /// waiting for its input is not stalled: `StallWatchdog`).
    public var isWaiting: Bool { waits.load(ordering: .relaxed) > 0 }

    /// How the list is written: a CSV list is split into rows (a quoted field may hold line breaks).
    let format: ListFormat

    /// Opens `path`, or stdin for nil / "-". Throws a message naming the list when it cannot be read.
    init(path: String?, format: ListFormat = .lines) throws(FetchError) {
        self.format = format
        splitter = RowSplitter(format: format)
        let name: String
        if let path, path != "-" {
            name = path
            fd = open(path, O_RDONLY | O_CLOEXEC)
        } else {
            name = "stdin"
            fd = dup(0)
        }
        guard fd >= 0 else { throw .fileError("\(name): \(String(cString: strerror(errno)))") }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw .fileError("\(name): \(message)")
        }
        if st.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            throw .fileError("\(name): is a directory")
        }
        isRegularFile = st.st_mode & S_IFMT == S_IFREG
    }

    deinit { close(fd) }

    /// The lines that arrived with the next read (at least one), or empty at the end of the list.
    /// A line is returned as soon as its line end arrives, so a pipe fed slowly is followed line by
    /// line. Cancelling the calling task returns empty at once, even while a read waits for input
    /// (the lines that read returns later are dropped: a cancelled run reads no further).
    public func nextBatch() async -> [ListLine] {
        let waiter = Waiter()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard waiter.install(continuation) else { return }
                queue.async { waiter.resume(returning: self.readLines()) }
            }
        } onCancel: {
            waiter.cancel()
        }
    }

    /// Why reading stopped early (a read error), once `nextBatch` returned empty; nil at a normal end.
    public var readFailure: String? { queue.sync { failure } }

    /// Ends the list early with `message` as its read failure (a table whose header lacks a column).
    func stop(_ message: String) {
        queue.sync {
            failure = message
            ended = true
        }
    }

    /// Blocks in `read` until at least one line is complete or the input ends. On `queue` only.
    private func readLines() -> [ListLine] {
        while !ended {
            if !isRegularFile { waits.add(1, ordering: .relaxed) }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if !isRegularFile { waits.subtract(1, ordering: .relaxed) }
            if n < 0 {
                if errno == EINTR { continue }
                let message = String(cString: strerror(errno))
                failure = message
                ended = true
            } else if n == 0 {
                ended = true
            } else {
                let lines = buffer.withUnsafeBytes { splitter.feed(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
                if !lines.isEmpty { return lines }
                continue
            }
            if let last = splitter.finish() { return [last] }
        }
        return []
    }

    /// Counts the source lines (not blank, not comments) of a regular file for the progress bar's
    /// total, from the current offset with `pread` (the list is not consumed); nil for anything else
    /// (a pipe, a FIFO, `<(...)`, a terminal: counting those would read them; a table, whose rows
    /// are not its lines).
    public func countSources() -> Int? {
        guard isRegularFile, !format.isTable else { return nil }
        let start = lseek(fd, 0, SEEK_CUR)
        guard start >= 0 else { return nil }
        var offset = start
        var counter = ListSourceCounter()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            chunk.withUnsafeBytes { counter.feed(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            offset += off_t(n)
        }
        return counter.count
    }
}

/// One `nextBatch` call's continuation, resumed exactly once: by the read or by a cancellation,
/// whichever comes first (a cancellation that comes before the continuation is installed wins too).
private final class Waiter: Sendable {
    private struct State {
        var continuation: CheckedContinuation<[ListLine], Never>?
        var cancelled = false
    }
    private let state = Lock(State())

    /// Stores the continuation; false (after resuming it empty) when the task is already cancelled.
    func install(_ continuation: CheckedContinuation<[ListLine], Never>) -> Bool {
        let cancelled = state.withLock { s in
            if !s.cancelled { s.continuation = continuation }
            return s.cancelled
        }
        if cancelled { continuation.resume(returning: []) }
        return !cancelled
    }

    func resume(returning lines: [ListLine]) {
        let continuation = state.withLock { s in defer { s.continuation = nil }; return s.continuation }
        continuation?.resume(returning: lines)
    }

    func cancel() {
        let continuation = state.withLock { s -> CheckedContinuation<[ListLine], Never>? in
            s.cancelled = true
            defer { s.continuation = nil }
            return s.continuation
        }
        continuation?.resume(returning: [])
    }
}
