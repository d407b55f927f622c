#if canImport(Glibc)
import Glibc
#endif

/// Writing a user's output path (`get -o PATH`) *into* what PATH is, as curl and coreutils do.
///
/// - A regular file, or a path that does not exist yet, is replaced atomically: a temporary file in
///   the same directory, renamed over it (readers see the old image or the new one). An existing
///   file keeps its permission bits, and its owner and group when run as root. A new file gets
///   0666 less the umask.
/// - Anything else (a character or block device, a FIFO, `/dev/stdout`, `/dev/fd/N`,
///   `/proc/self/fd/N`) is opened and written in place; nothing is ever created or renamed there.
/// - A symbolic link is written through, never renamed over: when its target is a regular file, the
///   *target* is replaced atomically and the link stays; when it is something else, the target is
///   written in place; a link to nothing is refused (as `cp` refuses a dangling link).
/// - A directory is an error naming it.
extension FileSystem {
    /// How `writeOutput` will treat `path`, decided from `lstat`/`stat` before any work is done.
    public enum OutputKind: Sendable, Equatable {
        /// A regular file or a new path: replaced atomically (the path to rename over).
        case replace(String)
        /// A device, FIFO or open descriptor: opened and written in place.
        case inPlace(String)
    }

    /// Decides what `path` is as an output. Throws for a directory, a dangling link, or a status that
    /// cannot be read.
    public static func outputKind(_ path: String) throws(Failure) -> OutputKind {
        var st = stat()
        if lstat(path, &st) != 0 {
            guard errno == ENOENT else { throw Failure(errno: errno, path: path, operation: "cannot use") }
            return .replace(path)
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .replace(path)
        case S_IFDIR: throw Failure(errno: EISDIR, path: path, operation: "cannot write to")
        case S_IFLNK: break
        default: return .inPlace(path)
        }
        // A symbolic link: what it points to decides. /dev/stdout, /dev/fd/N and /proc/*/fd/N name an
        // open descriptor (their "target" may be a pipe, or a file the shell opened for appending).
        var target = stat()
        guard stat(path, &target) == 0 else {
            throw Failure(errno: errno, path: path, operation: errno == ENOENT ? "not writing through the dangling symbolic link" : "cannot use")
        }
        if (target.st_mode & S_IFMT) == S_IFDIR { throw Failure(errno: EISDIR, path: path, operation: "cannot write to") }
        if (target.st_mode & S_IFMT) != S_IFREG || namesDescriptor(path) || namesDescriptor(linkTarget(path)) {
            return .inPlace(path)
        }
        guard let resolved = realpath(path, nil) else { return .inPlace(path) }
        defer { free(resolved) }
        return .replace(String(cString: resolved))
    }

    /// Writes `bytes` to `path` as `outputKind(path)` says. On failure nothing is left behind (a
    /// temporary file is removed) and a replaced file is untouched.
    ///
    /// `keepingExisting` (`--no-clobber`): a regular file (or a link to one) already there is kept,
    /// decided when the new file is linked into place (`replaceAtomically`), not by a check before
    /// it; false is returned then. A device, FIFO or descriptor name is still written.
    ///
    /// `ownerOnly`: the bytes may carry credentials (`--save-failed`'s list lines): a file made or
    /// replaced is 0600 at most (an existing file's bits less group and others).
    @discardableResult
    public static func writeOutput(_ bytes: [UInt8], to path: String, keepingExisting: Bool = false,
                                   ownerOnly: Bool = false) throws(Failure) -> Bool {
        switch try outputKind(path) {
        case .replace(let file): return try replaceAtomically(bytes, file: file, keepingExisting: keepingExisting, ownerOnly: ownerOnly)
        case .inPlace(let file): try writeInPlace(bytes, file: file)
        }
        return true
    }

    /// `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/<pid|self>/fd/N`: names of open descriptors.
    static func namesDescriptor(_ path: String) -> Bool {
        if path == "/dev/stdout" || path == "/dev/stderr" || path.hasPrefix("/dev/fd/") { return true }
        let parts = path.split(separator: "/")
        return parts.count == 4 && parts[0] == "proc" && parts[2] == "fd"
    }

    /// What the symbolic link at `path` holds (one hop), "" when it cannot be read.
    static func linkTarget(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return "" }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func writeInPlace(_ bytes: [UInt8], file: String) throws(Failure) {
        // Never O_CREAT: this path exists and is not ours to create. O_NOCTTY: a terminal given as
        // PATH must not become the controlling terminal.
        let fd = open(file, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(errno: errno, path: file, operation: "open") }
        var st = stat()
        // Truncate only where it means something (a regular file behind a descriptor name).
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, ftruncate(fd, 0) != 0 {
            let failure = Failure(errno: errno, path: file, operation: "truncate")
            close(fd)
            throw failure
        }
        var failure = writeAll(fd: fd, bytes).map { Failure(errno: $0, path: file, operation: "write") }
        if close(fd) != 0, failure == nil, errno != EINTR { failure = Failure(errno: errno, path: file, operation: "close") }
        if let failure { throw failure }
    }

    static func replaceAtomically(_ bytes: [UInt8], file: String, keepingExisting: Bool = false,
                                  ownerOnly: Bool = false) throws(Failure) -> Bool {
        let slash = file.lastIndex(of: "/")
        let directory = slash.map { file[..<$0].isEmpty ? "/" : String(file[..<$0]) } ?? "."
        let tmp = directory + "/" + temporaryName()
        return try replaceAtomically(bytes, at: AT_FDCWD, file, temporary: tmp, temporaryPath: tmp, display: file,
                                     keepingExisting: keepingExisting, ownerOnly: ownerOnly)
    }

    /// The one atomic replace of a user's output file (`get -o`, `cache sheet -o`, `--output-dir`):
    /// `bytes` go to the new file `temporary`, then it is renamed to `name` (both relative to
    /// `dirfd`, in the same directory). An existing regular file keeps its permission bits, and its
    /// owner and group when run as root; a new one gets 0666 less the umask. `temporaryPath` is the
    /// temporary file's path (removed should a signal end the process first), `display` the name
    /// errors give the file.
    ///
    /// `keepingExisting`: `name` is created exclusively instead: the complete temporary file is
    /// hard-linked to it (`linkat` fails with EEXIST when anything is there, however recently it
    /// came), then removed. Returns false when something was there (it is kept), true when written.
    @discardableResult
    static func replaceAtomically(_ bytes: [UInt8], at dirfd: Int32, _ name: String, temporary tmp: String,
                                  temporaryPath: String, display: String, keepingExisting: Bool = false,
                                  ownerOnly: Bool = false) throws(Failure) -> Bool {
        var existing = stat()
        let present = fstatat(dirfd, name, &existing, AT_SYMLINK_NOFOLLOW) == 0
        // Already there: nothing to write (the link below decides for a name that appears meanwhile).
        if keepingExisting && present { return false }
        let exists = !keepingExisting && present && (existing.st_mode & S_IFMT) == S_IFREG
        // An existing file we may not write is not ours to replace (rename would bypass its mode).
        if exists, faccessat(dirfd, name, W_OK, AT_EACCESS) != 0 {
            throw Failure(errno: errno, path: display, operation: "cannot write")
        }
        let shownTemporary = temporaryPath
        // Recorded, so that a process ending on SIGINT/SIGTERM removes it first (TemporaryFiles).
        let (fd, slot) = TemporaryFiles.create(at: dirfd, tmp, path: temporaryPath, mode: ownerOnly ? 0o600 : 0o666)
        guard fd >= 0 else { throw Failure(errno: errno, path: display, operation: "create a file next to") }
        defer { TemporaryFiles.forget(slot) }
        var failure: Failure?
        if exists {
            // Owner first: chown clears set-id bits, and the mode is set after it.
            if geteuid() == 0, fchown(fd, existing.st_uid, existing.st_gid) != 0 {
                failure = Failure(errno: errno, path: shownTemporary, operation: "chown")
            }
            if failure == nil, fchmod(fd, existing.st_mode & (ownerOnly ? 0o600 : 0o777)) != 0 {
                failure = Failure(errno: errno, path: shownTemporary, operation: "chmod")
            }
        }
        if failure == nil { failure = writeAll(fd: fd, bytes).map { Failure(errno: $0, path: shownTemporary, operation: "write") } }
        if close(fd) != 0, failure == nil, errno != EINTR { failure = Failure(errno: errno, path: shownTemporary, operation: "close") }
        var written = true
        if failure == nil, keepingExisting {
            if linkat(dirfd, tmp, dirfd, name, 0) != 0 {
                if errno == EEXIST { written = false } else { failure = Failure(errno: errno, path: display, operation: "create") }
            }
            unlinkat(dirfd, tmp, 0)
        } else if failure == nil, renameat(dirfd, tmp, dirfd, name) != 0 {
            failure = Failure(errno: errno, path: display, operation: "rename to")
        }
        if let failure {
            unlinkat(dirfd, tmp, 0)
            throw failure
        }
        return written
    }
}
