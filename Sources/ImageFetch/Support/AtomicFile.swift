#if canImport(Glibc)
import Glibc
#endif

/// A file written piece by piece under a temporary name in its directory and renamed to its final
/// name by `commit` only: until then the final name holds the old file or nothing, never a part.
/// A process ending on SIGINT/SIGTERM removes the temporary file (`TemporaryFiles`); one killed
/// leaves a `.tmp-<pid>-<random>` file, never a file under the final name. Used from one task.
public final class AtomicFile {
    public let path: String
    private let temporary: String
    private var fd: Int32
    private var slot: Int32
    /// The first write error; `commit` throws it.
    private var failure: FileSystem.Failure?
    public private(set) var bytesWritten: Int64 = 0
    /// With `hashing`: the SHA-256 of the bytes appended so far (`sha256`).
    private var hash: SHA256?

    /// Creates the temporary file beside `path` (its directory must exist), with `mode` less the umask.
    /// With `hashing`, the bytes are hashed as they are appended (`sha256`).
    public init(path: String, mode: mode_t = 0o644, hashing: Bool = false) throws(FileSystem.Failure) {
        self.path = path
        hash = hashing ? SHA256() : nil
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        temporary = (directory.isEmpty ? "" : directory) + "/" + FileSystem.temporaryName()
        (fd, slot) = TemporaryFiles.create(temporary, mode: mode)
        guard fd >= 0 else { throw FileSystem.Failure(errno: errno, path: directory, operation: "create in") }
    }

    deinit { discard() }

    /// Appends `bytes`; an error is kept for `commit`.
    public func append(_ bytes: [UInt8]) {
        guard fd >= 0, failure == nil else { return }
        if let error = FileSystem.writeAll(fd: fd, bytes) {
            failure = FileSystem.Failure(errno: error, path: temporary, operation: "write")
        } else {
            bytesWritten += Int64(bytes.count)
            hash?.update(bytes)
        }
    }

    /// The hex SHA-256 of what was appended (nil without `hashing`): the file's, once committed.
    public var sha256: String? {
        guard var copy = hash else { return nil }
        return SHA256.hexString(copy.finalize())
    }

    /// Syncs the file and renames it to `path`; on failure the temporary file is removed.
    public func commit() throws(FileSystem.Failure) {
        guard fd >= 0 else { throw FileSystem.Failure(errno: EBADF, path: path, operation: "write") }
        if failure == nil, fsync(fd) != 0 { failure = FileSystem.Failure(errno: errno, path: temporary, operation: "fsync") }
        if close(fd) != 0, failure == nil { failure = FileSystem.Failure(errno: errno, path: temporary, operation: "close") }
        fd = -1
        if failure == nil, rename(temporary, path) != 0 { failure = FileSystem.Failure(errno: errno, path: path, operation: "rename to") }
        if let failure {
            unlink(temporary)
            TemporaryFiles.forget(slot)
            throw failure
        }
        TemporaryFiles.forget(slot)
    }

    /// Removes the temporary file (nothing under `path` changes). Idempotent.
    public func discard() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
        unlink(temporary)
        TemporaryFiles.forget(slot)
    }
}
