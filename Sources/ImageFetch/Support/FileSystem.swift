#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, allocation-light POSIX file operations for the cache's hot paths (no Foundation on a hit).
/// Errors carry errno so the cache can tell "missing" from "cannot use the directory".
public enum FileSystem {
    public struct Failure: Error, Sendable, Equatable {
        public let errno: Int32
        public let path: String
        public let operation: String
        public init(errno: Int32, path: String, operation: String) {
            self.errno = errno
            self.path = path
            self.operation = operation
        }
        public var message: String {
            // O_NOFOLLOW on a link: say what it is rather than "Too many levels of symbolic links".
            if errno == ELOOP { return "\(operation) \(path): is a symbolic link (never followed)" }
            return "\(operation) \(path): \(String(cString: strerror(errno)))"
        }
    }

    /// Reads a whole file. Throws `Failure` (ENOENT when missing).
    public static func read(_ path: String) throws(Failure) -> [UInt8] {
        try readWithStatus(path).bytes
    }

    /// Reads a whole file, with the status its open descriptor had (no second lookup of `path`).
    public static func readWithStatus(_ path: String) throws(Failure) -> (bytes: [UInt8], status: Status?) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(errno: errno, path: path, operation: "open") }
        defer { close(fd) }
        var st = stat()
        let status = fstat(fd, &st) == 0 ? Status(st) : nil
        return (try readAll(fd: fd, path: path, sizeHint: status?.size ?? 0), status)
    }

    /// Reads a regular file of at most `maxBytes`, checked on the open descriptor (no window between a
    /// check and the read): opened without blocking, so a FIFO or a device put in its place is
    /// refused (EINVAL) rather than waited on; a larger file, or one that grows past the limit while
    /// read, is EFBIG.
    public static func readRegular(_ path: String, maxBytes: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(errno: errno, path: path, operation: "open") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure(errno: errno, path: path, operation: "stat") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw Failure(errno: EINVAL, path: path, operation: "read (not a regular file)") }
        guard st.st_size <= maxBytes else { throw Failure(errno: EFBIG, path: path, operation: "read") }
        let bytes = try readAll(fd: fd, path: path, sizeHint: Int64(st.st_size), limit: maxBytes)
        guard bytes.count <= maxBytes else { throw Failure(errno: EFBIG, path: path, operation: "read") }
        return bytes
    }

    /// Reads `fd` to its end; `sizeHint` (the file's size, when known) sizes the buffer. With
    /// `limit`, reading stops after `limit + 1` bytes (so a caller sees that the file is larger).
    static func readAll(fd: Int32, path: String, sizeHint: Int64, limit: Int? = nil) throws(Failure) -> [UInt8] {
        let cap = limit.map { $0 + 1 } ?? Int.max
        var capacity = 64 * 1024
        if sizeHint > 0 && sizeHint < Int64(Int32.max) { capacity = Int(sizeHint) + 1 }
        let first = min(capacity, cap)
        var out = try readChunk(fd: fd, path: path, count: first)
        guard out.count == first else { return out }   // the end of the file, in one piece (the usual case)
        while out.count < cap {
            let want = min(max(out.count, 64 * 1024), cap - out.count)
            let more = try readChunk(fd: fd, path: path, count: want)
            out.append(contentsOf: more)
            if more.count < want { break }
        }
        return out
    }

    /// Up to `count` bytes read from `fd` into a buffer never cleared first (the bytes read are all
    /// it holds): fewer only at the end of the file.
    private static func readChunk(fd: Int32, path: String, count: Int) throws(Failure) -> [UInt8] {
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            while initialized < count {
                let n = Glibc.read(fd, buffer.baseAddress! + initialized, count - initialized)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if n == 0 { return }
                initialized += n
            }
        }
        if failure != 0 { throw Failure(errno: failure, path: path, operation: "read") }
        return bytes
    }

    /// Writes all of `bytes` to `fd`, retrying after signals; the errno of a failed write, else nil.
    public static func writeAll(fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { buf in Glibc.write(fd, buf.baseAddress! + written, buf.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            written += n
        }
        return nil
    }

    /// Writes `bytes` to a new temporary file in `directory`, fsyncs it, and renames it to `path`:
    /// readers see the old file or the new one, never a torn one. The new file has `mode` less the
    /// umask. Returns nothing; throws on failure after removing the temporary file.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, temporaryDirectory directory: String, sync: Bool = true,
                                       mode: mode_t = 0o644) throws(Failure) {
        let tmp = directory + "/" + temporaryName()
        let (fd, slot) = TemporaryFiles.create(tmp, mode: mode)
        guard fd >= 0 else { throw Failure(errno: errno, path: directory, operation: "create in") }
        defer { TemporaryFiles.forget(slot) }
        var failure = writeAll(fd: fd, bytes).map { Failure(errno: $0, path: tmp, operation: "write") }
        if failure == nil, sync, fsync(fd) != 0 { failure = Failure(errno: errno, path: tmp, operation: "fsync") }
        if close(fd) != 0, failure == nil { failure = Failure(errno: errno, path: tmp, operation: "close") }
        if failure == nil, rename(tmp, path) != 0 { failure = Failure(errno: errno, path: path, operation: "rename to") }
        if let failure {
            unlink(tmp)
            throw failure
        }
    }

    /// Writes `bytes` over the start of `path` (created if missing), without a new inode. Not atomic:
    /// only for small hint files whose readers tolerate a torn value.
    public static func overwrite(_ bytes: [UInt8], at path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        _ = ftruncate(fd, off_t(bytes.count))
        close(fd)
    }

    /// Creates a directory and its parents (mode 0755). Succeeds when it already exists.
    public static func makeDirectories(_ path: String) throws(Failure) {
        if mkdir(path, 0o755) == 0 || errno == EEXIST {
            if isDirectory(path) { return }
            throw Failure(errno: ENOTDIR, path: path, operation: "mkdir")
        }
        guard errno == ENOENT else { throw Failure(errno: errno, path: path, operation: "mkdir") }
        let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        guard !parent.isEmpty, parent != path else { throw Failure(errno: ENOENT, path: path, operation: "mkdir") }
        try makeDirectories(parent)
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw Failure(errno: errno, path: path, operation: "mkdir") }
    }

    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    public struct Status: Sendable {
        public var size: Int64
        public var modified: Double
        public var isDirectory: Bool
        public var isRegular: Bool
        public var isSymbolicLink: Bool
        /// The owner may write it (`S_IWUSR`). A cache image without it is a by-product
        /// (`CacheEntry.Kept`): what the cache's name-and-stat scan orders eviction by.
        public var ownerWritable: Bool

        init(_ st: stat) {
            size = Int64(st.st_size)
            modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
            isDirectory = (st.st_mode & S_IFMT) == S_IFDIR
            isRegular = (st.st_mode & S_IFMT) == S_IFREG
            isSymbolicLink = (st.st_mode & S_IFMT) == S_IFLNK
            ownerWritable = (st.st_mode & S_IWUSR) != 0
        }
    }

    public static func status(_ path: String) -> Status? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Status(st)
    }

    /// The status of `path` itself: a symbolic link is reported as a link, not followed.
    public static func linkStatus(_ path: String) -> Status? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return Status(st)
    }

    /// Sets a file's modification time (the cache's "last access"): one syscall, no data written.
    public static func touch(_ path: String, at time: Double) {
        var times = [timespec(tv_sec: Int(time), tv_nsec: 0), timespec(tv_sec: Int(time), tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    @discardableResult
    public static func remove(_ path: String) -> Bool { unlink(path) == 0 }

    /// Names in a directory (without "." and ".."); empty when it cannot be read.
    public static func list(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        return names(dir)
    }

    /// The names an open directory stream yields (without "." and "..").
    static func names(_ dir: OpaquePointer) -> [String] {
        var names: [String] = []
        // Read d_name in place: a record from readdir may be shorter than sizeof(struct dirent), so
        // copying the struct (or its 256-byte d_name) can read past the end of the directory buffer.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(dir) {
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Seconds since the Unix epoch.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Monotonic seconds, for durations.
    public static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// A unique temporary file name: `.tmp-<pid>-<random>` (never matched as an entry).
    static func temporaryName() -> String {
        ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    }
}
