#if canImport(Glibc)
import Glibc
#endif

/// The process's descriptor limit (RLIMIT_NOFILE): raised at start, then the bound of the work.
extension Console {
    /// Raises the soft limit to the hard one (capped at 2^20 when the hard one is unlimited, RLIM_INFINITY, more
    /// than the kernel's default `nr_open` allows anyway); nothing when it cannot.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let target = limit.rlim_max == rlim_t.max ? rlim_t(1 << 20) : limit.rlim_max
        guard limit.rlim_cur != rlim_t.max, limit.rlim_cur < target else { return }
        var raised = limit
        raised.rlim_cur = target
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) != 0 && target > 65_536 {
            raised.rlim_cur = max(limit.rlim_cur, 65_536)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised)
        }
    }

    /// The soft descriptor limit now (a large number when unlimited or unknown).
    static var descriptorLimit: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return 1 << 20 }
        return Int(clamping: limit.rlim_cur)
    }

    /// How many direct GETs of an http:// tier may run at once (`RemoteStoreSettings.maxDirectReads`):
    /// at most `transfers` (`-j`; 8 when unset), and few enough that they (up to 4 descriptors each:
    /// the socket, two eventfds, a name lookup's eventfd), `transfers` libcurl connections and 64 spare
    /// descriptors (files of the cache, the list, libraries being loaded) fit under the limit.
    static func directReadBudget(transfers: Int) -> Int {
        let jobs = transfers > 0 ? transfers : 8
        return max(1, min(jobs, (descriptorLimit - jobs - 64) / 4))
    }
}
