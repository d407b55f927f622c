#if canImport(Glibc)
import Glibc
#endif

/// An open directory, read and changed only through its descriptor (`openat`, `fstatat`, `unlinkat`):
/// a name in it is never resolved through a symbolic link, and the directory itself is opened with
/// `O_NOFOLLOW`, so a link planted in the cache directory cannot send a scan or a removal elsewhere.
/// Used by the cache's scans (`CacheScan`, key prefixes, listing).
public final class Directory {
    let fd: Int32
    /// The path it was opened at (for messages only; never used to reach files).
    public let path: String

    /// Opens `path` (not following a symbolic link at its last component); nil when it is not a
    /// readable directory.
    public init?(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.path = path
    }

    /// Opens the subdirectory `name` (a single component; a link there is refused).
    public init?(in parent: Directory, _ name: String) {
        guard Directory.isPlainName(name) else { return nil }
        let fd = openat(parent.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.path = parent.path + "/" + name
    }

    deinit { close(fd) }

    /// A single path component: no `/`, not `.` or `..`, not empty.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.utf8.contains(UInt8(ascii: "/"))
    }

    /// Calls `body` with each name (without `.` and `..`), in directory order, without collecting them.
    /// Reading stops when `body` returns false.
    public func forEachName(_ body: (String) -> Bool) {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)   // dup would drop close-on-exec
        guard copy >= 0 else { return }
        guard let dir = fdopendir(copy) else { close(copy); return }
        defer { closedir(dir) }
        rewinddir(dir)  // the duplicate shares its offset with `fd`: start from the beginning every time
        // Read d_name in place: a record may be shorter than sizeof(struct dirent).
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(dir) {
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if name == "." || name == ".." { continue }
            if !body(name) { return }
        }
    }

    /// Every name, sorted bytewise.
    public func sortedNames() -> [String] {
        var names: [String] = []
        forEachName { names.append($0); return true }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The status of `name` itself (a link is reported as a link: neither regular nor a directory).
    public func status(_ name: String) -> FileSystem.Status? {
        guard Directory.isPlainName(name) else { return nil }
        var st = stat()
        guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileSystem.Status(st)
    }

    /// Reads a regular file `name` of at most `limit` bytes; nil when it is missing, a link, not a
    /// regular file, larger than `limit`, or unreadable.
    public func read(_ name: String, limit: Int) -> [UInt8]? {
        guard Directory.isPlainName(name) else { return nil }
        let file = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var st = stat()
        guard fstat(file, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size <= limit else { return nil }
        var out = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        var count = 0
        while count < out.count {
            let n = out.withUnsafeMutableBytes { buf in Glibc.read(file, buf.baseAddress! + count, buf.count - count) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { return nil }  // grew while being read
        out.removeSubrange(count...)
        return out
    }

    /// Removes the file (or link) `name`, never what a link points to. True when it was removed.
    @discardableResult
    public func remove(_ name: String) -> Bool {
        guard Directory.isPlainName(name) else { return false }
        return unlinkat(fd, name, 0) == 0
    }
}
