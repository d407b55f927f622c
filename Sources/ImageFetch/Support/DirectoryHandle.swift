#if canImport(Glibc)
import Glibc
#endif

/// An open directory whose every operation is relative to its descriptor (`openat`, `unlinkat`,
/// `renameat`, `fstatat`) and never follows a symbolic link in the name it is given (`O_NOFOLLOW`,
/// `AT_SYMLINK_NOFOLLOW`). The cache works through these, so a link planted inside it (at `v1/tmp`,
/// a shard, `v1/usage`, an entry) can redirect no read, write, listing or removal: opening it fails
/// (ELOOP) or it is removed as a link, never its target.
///
/// Sendable: the descriptor is immutable and the kernel serialises operations on it; it is closed
/// once, when the last reference goes away.
final class DirectoryHandle: Sendable {
    /// The descriptor, open read-only with `O_DIRECTORY`.
    let fd: Int32
    /// The directory's path, for messages only (never used to reach a file).
    let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// Opens `path` as a directory. With `followingLink` false, a symbolic link as its last component
    /// is refused (ELOOP); links in the components before it are the caller's own path and are followed.
    static func open(_ path: String, followingLink: Bool) throws(FileSystem.Failure) -> DirectoryHandle {
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLink ? 0 : O_NOFOLLOW)
        let fd = Glibc.open(path, flags)
        guard fd >= 0 else {
            let error = errno
            var st = stat()
            // O_DIRECTORY | O_NOFOLLOW on a link fails with ENOTDIR: report it as the link it is (ELOOP).
            let isLink = !followingLink && lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
            throw FileSystem.Failure(errno: isLink ? ELOOP : error, path: path, operation: "open")
        }
        return DirectoryHandle(fd: fd, path: path)
    }

    func child(_ name: String) -> String { path + "/" + name }

    /// Opens the subdirectory `name` (a link there fails with ELOOP). With `create`, a missing one is
    /// made first (mode 0755); one removed by another process between the two steps is made again.
    func subdirectory(_ name: String, create: Bool = false) throws(FileSystem.Failure) -> DirectoryHandle {
        for _ in 0..<3 {
            let fd = openat(self.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if fd >= 0 { return DirectoryHandle(fd: fd, path: child(name)) }
            let error = errno
            guard create, error == ENOENT else {
                // O_DIRECTORY | O_NOFOLLOW on a link fails with ENOTDIR: report it as the link it is (ELOOP).
                throw FileSystem.Failure(errno: status(name)?.isSymbolicLink == true ? ELOOP : error, path: child(name), operation: "open")
            }
            if mkdirat(self.fd, name, 0o755) != 0 && errno != EEXIST {
                throw FileSystem.Failure(errno: errno, path: child(name), operation: "mkdir")
            }
        }
        throw FileSystem.Failure(errno: ENOENT, path: child(name), operation: "open")
    }

    /// Reads the regular file `name` whole, with the status of its open descriptor. A link, FIFO,
    /// device or directory there is refused (never opened for blocking reads).
    func read(_ name: String) throws(FileSystem.Failure) -> (bytes: [UInt8], status: FileSystem.Status) {
        let fd = openat(self.fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.Failure(errno: errno, path: child(name), operation: "open") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw FileSystem.Failure(errno: errno, path: child(name), operation: "stat") }
        let status = FileSystem.Status(st)
        guard status.isRegular else { throw FileSystem.Failure(errno: EINVAL, path: child(name), operation: "read (not a regular file)") }
        return (try FileSystem.readAll(fd: fd, path: child(name), sizeHint: status.size), status)
    }

    /// Writes `bytes` to a new file in `temporary` and renames it to `name` here: readers see the old
    /// file or the new one, never a torn one. The temporary file is removed on failure.
    /// `mode` 0o444 marks a by-product image (`FileSystem.Status.ownerWritable`); the umask still applies.
    func writeAtomically(_ bytes: [UInt8], to name: String, via temporary: DirectoryHandle, sync: Bool,
                         mode: mode_t = 0o644) throws(FileSystem.Failure) {
        let staged = try stage(bytes, in: temporary, sync: sync, mode: mode)
        guard commit(staged, from: temporary, to: name) else {
            throw FileSystem.Failure(errno: errno, path: child(name), operation: "rename to")
        }
    }

    /// A temporary file written by `stage`, still recorded for removal on SIGINT/SIGTERM.
    struct Staged {
        var name: String
        var slot: Int32
    }

    /// Writes `bytes` to a new temporary file in `temporary` (`commit` renames it into place), so
    /// that a large file can be written before a lock is taken, or a total counted, for its rename.
    func stage(_ bytes: [UInt8], in temporary: DirectoryHandle, sync: Bool, mode: mode_t = 0o644) throws(FileSystem.Failure) -> Staged {
        let tmp = FileSystem.temporaryName()
        // Recorded, so that a process ending on SIGINT/SIGTERM removes it first (TemporaryFiles),
        // until `commit` renames it.
        let (fd, slot) = TemporaryFiles.create(at: temporary.fd, tmp, path: temporary.child(tmp), mode: mode)
        guard fd >= 0 else { throw FileSystem.Failure(errno: errno, path: temporary.path, operation: "create in") }
        var failure = FileSystem.writeAll(fd: fd, bytes).map { FileSystem.Failure(errno: $0, path: temporary.child(tmp), operation: "write") }
        if failure == nil, sync, fsync(fd) != 0 { failure = FileSystem.Failure(errno: errno, path: temporary.child(tmp), operation: "fsync") }
        if close(fd) != 0, failure == nil { failure = FileSystem.Failure(errno: errno, path: temporary.child(tmp), operation: "close") }
        if let failure {
            unlinkat(temporary.fd, tmp, 0)
            TemporaryFiles.forget(slot)
            throw failure
        }
        return Staged(name: tmp, slot: slot)
    }

    /// Renames the staged file of `temporary` to `name` here (removing it when that fails).
    @discardableResult
    func commit(_ staged: Staged, from temporary: DirectoryHandle, to name: String) -> Bool {
        defer { TemporaryFiles.forget(staged.slot) }
        if renameat(temporary.fd, staged.name, self.fd, name) == 0 { return true }
        let failure = errno
        unlinkat(temporary.fd, staged.name, 0)
        errno = failure   // the rename's, for the caller's message (and its ENOENT retry)
        return false
    }

    /// Removes a staged temporary file that will not be committed (`self` is its directory).
    func discard(_ staged: Staged) {
        unlinkat(fd, staged.name, 0)
        TemporaryFiles.forget(staged.slot)
    }

    /// Commits an entry: `image`, then `meta` (the commit), both staged in `temporary`. On a failure,
    /// what was not renamed is removed and the failure returned (its errno the rename's).
    func commit(image: Staged, as imageName: String, meta: Staged, as metaName: String,
                from temporary: DirectoryHandle) -> FileSystem.Failure? {
        guard commit(image, from: temporary, to: imageName) else {
            let failure = FileSystem.Failure(errno: errno, path: child(imageName), operation: "rename to")
            temporary.discard(meta)
            return failure
        }
        guard commit(meta, from: temporary, to: metaName) else {
            return FileSystem.Failure(errno: errno, path: child(metaName), operation: "rename to")
        }
        return nil
    }

    /// Up to `count` bytes of the regular file `name` from `offset` (fewer at its end); nil when it
    /// is missing, a link or not a regular file. `size` is the file's size.
    func read(_ name: String, offset: Int, count: Int) -> (bytes: [UInt8], size: Int64)? {
        let fd = openat(self.fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, count >= 0, offset >= 0 else { return nil }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            done += n
        }
        out.removeSubrange(done...)
        return (out, Int64(st.st_size))
    }

    /// Writes `bytes` at `offset` of the existing regular file `name`, in place (not atomic: for a
    /// field of a hint file whose readers validate it). Returns whether it was written.
    @discardableResult
    func patch(_ bytes: [UInt8], at name: String, offset: Int) -> Bool {
        let fd = openat(self.fd, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        return bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) } == bytes.count
    }

    /// Creates the empty regular file `name`; false when anything is there already.
    func createExclusive(_ name: String) -> Bool {
        let fd = openat(self.fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    /// Gives the owner write permission on the regular file `name` (a by-product image becomes an
    /// image asked for); a link is left alone.
    func makeOwnerWritable(_ name: String) {
        var st = stat()
        guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return }
        _ = fchmodat(fd, name, (st.st_mode & 0o7777) | S_IWUSR, 0)
    }

    /// Writes `bytes` over the start of the regular file `name` (created if missing), without a new
    /// inode. Not atomic: only for small hint files whose readers tolerate a torn value. A link or
    /// anything but a regular file there is left alone. Returns whether it was written.
    @discardableResult
    func overwrite(_ bytes: [UInt8], at name: String) -> Bool {
        let fd = openat(self.fd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return written == bytes.count && ftruncate(fd, off_t(bytes.count)) == 0
    }

    /// The status of `name` itself (a link is reported as a link, never its target); nil when absent.
    func status(_ name: String) -> FileSystem.Status? {
        var st = stat()
        guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileSystem.Status(st)
    }

    /// Removes the file (or link) `name`, never a directory and never a link's target.
    @discardableResult
    func remove(_ name: String) -> Bool { unlinkat(fd, name, 0) == 0 }

    /// Removes the empty directory `name`.
    @discardableResult
    func removeDirectory(_ name: String) -> Bool { unlinkat(fd, name, AT_REMOVEDIR) == 0 }

    /// Sets the modification time of `name` itself (not a link's target).
    func touch(_ name: String, at time: Double) {
        var times = [timespec(tv_sec: Int(time), tv_nsec: 0), timespec(tv_sec: Int(time), tv_nsec: 0)]
        _ = utimensat(fd, name, &times, AT_SYMLINK_NOFOLLOW)
    }

    /// Names in the directory (without "." and ".."); empty when it cannot be read.
    func list() -> [String] {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)   // dup would drop close-on-exec
        guard copy >= 0 else { return [] }
        guard let dir = fdopendir(copy) else { close(copy); return [] }
        defer { closedir(dir) }
        rewinddir(dir)
        return FileSystem.names(dir)
    }

    /// Takes an exclusive advisory lock on the regular file `name` (created if needed) while `body`
    /// runs. A link there is not followed: `body` then runs without the lock, which only ever keeps
    /// two evictions from racing (correctness never depends on it).
    func withLock<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        let fd = openat(self.fd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
        if fd >= 0 { _ = flock(fd, LOCK_EX) }
        defer { if fd >= 0 { flock(fd, LOCK_UN); close(fd) } }
        return try body()
    }
}
