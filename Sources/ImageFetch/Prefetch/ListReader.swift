#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Streams the lines of a list file or stdin in batches, on a thread outside Swift's cooperative pool
/// (a slow pipe never blocks the pipeline's threads). Memory holds one batch, whatever the list length.
public final class ListReader: @unchecked Sendable {
    // @unchecked: `file` and `lineNumber` are only touched inside `queue`, a serial queue.
    private let file: UnsafeMutablePointer<FILE>
    private let queue = DispatchQueue(label: "imgfetch.list-reader")
    private var lineNumber = 0

    /// Opens `path`, or stdin for nil / "-". Throws a message naming the list when it cannot be read.
    public init(path: String?) throws(FetchError) {
        if let path, path != "-" {
            if FileSystem.status(path)?.isDirectory == true { throw .fileError("\(path): is a directory") }
            guard let f = fopen(path, "r") else {
                throw .fileError("\(path): \(String(cString: strerror(errno)))")
            }
            file = f
        } else {
            guard let f = fdopen(dup(0), "r") else { throw .fileError("stdin: \(String(cString: strerror(errno)))") }
            file = f
        }
    }

    deinit { fclose(file) }

    /// Up to `max` (line number, text) pairs; empty at the end of the list.
    public func nextBatch(max: Int = 256) async -> [(Int, String)] {
        await withCheckedContinuation { continuation in
            queue.async {
                var batch: [(Int, String)] = []
                var buffer: UnsafeMutablePointer<CChar>?
                var capacity = 0
                defer { free(buffer) }
                while batch.count < max {
                    let n = getline(&buffer, &capacity, self.file)
                    if n < 0 { break }
                    self.lineNumber += 1
                    // By length, not String(cString:): a NUL must reach the parser, not cut the line.
                    var text = String(decoding: UnsafeRawBufferPointer(start: buffer, count: n), as: UTF8.self)
                    while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
                    batch.append((self.lineNumber, text))
                }
                continuation.resume(returning: batch)
            }
        }
    }

    /// Counts the lines of a regular file quickly (for the progress bar's total); nil for pipes.
    public static func countLines(path: String?) -> Int? {
        guard let path, path != "-", let status = FileSystem.status(path), !status.isDirectory else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var lines = 0
        var last: UInt8 = 10
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            for i in 0..<n where buffer[i] == 10 { lines += 1 }
            last = buffer[n - 1]
        }
        return last == 10 ? lines : lines + 1
    }
}
