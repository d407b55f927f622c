#if canImport(Glibc)
import Glibc
#endif

/// An exclusive advisory lock between processes: `flock` on a regular file that, while held, holds
/// a line of text naming its holder (`flock` cannot say who holds a lock, so a process refused it
/// reads the holder's own words back, for its message). The file stays when the lock is released or
/// its holder dies (the kernel releases the lock): removing it would let a third process lock a new
/// file while a second still holds the old one. A link at the file's name is never followed.
///
/// Some filesystems refuse `flock` (`ENOLCK`, `ENOSYS`, `EINVAL`, `EOPNOTSUPP`: NFS mounted with
/// `nolock`, Lustre without `-o flock`, object-store mounts): that is `unsupported`, for the caller to
/// decide how to go on. Where `flock` is only local (NFS with `local_lock=flock`) it keeps apart the
/// processes of one host only; nothing here can tell.
///
/// Used from one task; the lock goes with the descriptor (`release`, or the process's end).
public final class LockFile {
    /// The outcome of asking for the lock.
    public enum Attempt {
        /// Held by this process until `release`.
        case acquired(LockFile)
        /// Held by another open file (another process, or another `LockFile` of this one): its
        /// holder's text, or "" when none could be read.
        case held(by: String)
        /// The filesystem refuses locks: nothing is held.
        case unsupported(FileSystem.Failure)
    }

    public let path: String
    private var fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { release() }

    /// The longest holder text written or read back.
    static let holderLimit = 512

    /// The errors of a filesystem that does not lock.
    static let unsupportedErrors: Set<Int32> = [ENOLCK, ENOSYS, EINVAL, EOPNOTSUPP]

    /// Takes the lock at `path` (created, mode 0644, when missing) without waiting, and writes
    /// `holder` in the file once it is held. Throws when the file cannot be opened (a link, not a
    /// regular file, no permission).
    public static func tryExclusive(_ path: String, holder: String) throws(FileSystem.Failure) -> Attempt {
        try take(path, holder: holder, wait: false, lock: systemFlock)
    }

    /// Takes the lock at `path`, waiting while another holds it (never `held`).
    public static func exclusive(_ path: String, holder: String) throws(FileSystem.Failure) -> Attempt {
        try take(path, holder: holder, wait: true, lock: systemFlock)
    }

    /// The same for the file `name` of an open directory (`openat`: a directory renamed or replaced
    /// by a link meanwhile is not followed), as the cache reaches its files.
    static func take(_ name: String, in directory: DirectoryHandle, holder: String, wait: Bool) throws(FileSystem.Failure) -> Attempt {
        try take(name, at: directory.fd, path: directory.child(name), holder: holder, wait: wait, lock: systemFlock)
    }

    /// `lock` is `flock` but in tests (a filesystem that refuses locks).
    static func take(_ path: String, holder: String, wait: Bool,
                     lock: (Int32, Int32) -> Int32) throws(FileSystem.Failure) -> Attempt {
        try take(path, at: AT_FDCWD, path: path, holder: holder, wait: wait, lock: lock)
    }

    /// Opens `name` relative to `directory` (`path` names it in messages) and takes the lock.
    static func take(_ name: String, at directory: Int32, path: String, holder: String, wait: Bool,
                     lock: (Int32, Int32) -> Int32) throws(FileSystem.Failure) -> Attempt {
        let fd = openat(directory, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileSystem.Failure(errno: errno, path: path, operation: "open") }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw FileSystem.Failure(errno: EINVAL, path: path, operation: "lock (not a regular file)")
        }
        while true {
            if lock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) == 0 { break }
            let error = errno
            if error == EINTR { continue }
            if error == EWOULDBLOCK {
                let text = readHolder(fd)
                close(fd)
                return .held(by: text)
            }
            close(fd)
            if unsupportedErrors.contains(error) { return .unsupported(FileSystem.Failure(errno: error, path: path, operation: "lock")) }
            throw FileSystem.Failure(errno: error, path: path, operation: "lock")
        }
        let line = Array(String(holder.prefix(holderLimit - 1)).utf8.prefix(holderLimit - 1)) + [10]
        _ = ftruncate(fd, 0)
        _ = line.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return .acquired(LockFile(path: path, fd: fd))
    }

    /// Releases the lock (and closes the file). Idempotent.
    public func release() {
        guard fd >= 0 else { return }
        _ = ftruncate(fd, 0)   // no holder's text is left behind for a lock nobody holds
        _ = systemFlock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    /// The holder's text in an open lock file: its first line, printable ASCII only, at most
    /// `holderLimit` bytes. The holder writes it right after taking the lock, so an empty file is
    /// read again a few times (at most ~0.5 s) before "" is returned.
    static func readHolder(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: holderLimit)
        for attempt in 0..<50 {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                let line = buffer[..<n].prefix { $0 != 10 }
                if line.count < n || attempt == 49 {   // a whole line, or the last try
                    return String(decoding: line.map { (32...126).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
                }
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
        }
        return ""
    }

    /// `host pid start-time`: this process, for a holder's text (`start` an ISO 8601 time).
    public static func processHolder(started start: String) -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count - 1) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown-host"
        return "\(host.isEmpty ? "unknown-host" : host) \(getpid()) \(start)"
    }
}

/// `flock(2)` (a name the struct of `fcntl` locks shares in Glibc).
private func systemFlock(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }
