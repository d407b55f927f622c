#if canImport(Glibc)
import Glibc
#endif

extension FileSystem {
    /// Sets close-on-exec on every descriptor of this process above the standard streams, before a
    /// child is spawned (`imgfetch cache scan`, `ip route`): imgfetch opens each of its own with
    /// `O_CLOEXEC`, and this covers one a library opened without it (a child must never hold a
    /// cache file, a socket or a terminal of its parent's). glibc's closefrom action
    /// (`posix_spawn_file_actions_addclosefrom_np`) is not imported into Swift.
    public static func closeOnExecAll() {
        guard let dir = opendir("/proc/self/fd") else { return }
        defer { closedir(dir) }
        let own = dirfd(dir)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name), fd > 2, fd != own else { continue }
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0, flags & FD_CLOEXEC == 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
        }
    }
}
