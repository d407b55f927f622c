import CSignals
#if canImport(Glibc)
import Glibc
#endif

/// Every temporary file this process is writing (an atomic write's file before its rename), kept
/// by the CSignals shim so that a process exiting on a signal removes them first and leaves nothing
/// behind. Recording one is a few atomic operations, no lock (and never happens on a cache hit).
public enum TemporaryFiles {
    /// Creates `path` exclusively for writing and records it: the descriptor (or -1 with `errno`
    /// set) and the slot to pass to `forget`.
    static func create(_ path: String, mode: mode_t) -> (fd: Int32, slot: Int32) {
        var slot: Int32 = -1
        let fd = ifs_tmp_create(path, mode, &slot)
        return (fd, slot)
    }

    /// Creates `name` in the directory `dirfd` (never through a link) and records its full `path`.
    static func create(at dirfd: Int32, _ name: String, path: String, mode: mode_t) -> (fd: Int32, slot: Int32) {
        var slot: Int32 = -1
        let fd = ifs_tmp_create_at(dirfd, name, path, mode, &slot)
        return (fd, slot)
    }

    /// The file was renamed into place or removed: no longer a temporary file.
    static func forget(_ slot: Int32) { ifs_tmp_forget(slot) }

    /// Removes every temporary file being written and refuses new ones (the process is about to
    /// exit); returns how many were removed.
    @discardableResult
    public static func removeAll() -> Int { Int(ifs_tmp_remove_all()) }
}
