#if canImport(Glibc)
import Glibc
#endif
import ImageFetch

/// The eviction candidates' scan of a `get`, run in a detached process (`imgfetch cache scan`), so
/// that no `get` pays for a scan of the whole cache: the store that found the list used up evicted
/// from a sample (`DiskCache+Sampling.swift`) and raised `scanWanted`.
enum BackgroundScan {
    /// Starts `imgfetch cache scan` for the cache of `cache` when one of its stores wanted it and no
    /// other scan runs (`v1/scanning`); its output goes to /dev/null, it outlives this process.
    static func startIfWanted(_ cache: any ImageCaching) {
        guard let scan = cache.claimDeferredScan(), let exe = executablePath() else { return }
        spawn([exe, "cache", "scan", "--cache-dir", scan.directory, "--cache-size-limit", String(scan.sizeLimit)])
    }

    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// posix_spawn in a new session, standard streams on /dev/null, no other descriptor of this
    /// process (cache files, sockets, the terminal: close-on-exec is set on every one,
    /// `FileSystem.closeOnExecAll`); not waited for.
    static func spawn(_ arguments: [String]) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        FileSystem.closeOnExecAll()
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, 0x80)   // POSIX_SPAWN_SETSID (glibc >= 2.26; not imported into Swift)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        _ = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
    }
}
