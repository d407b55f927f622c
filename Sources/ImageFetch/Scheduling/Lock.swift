#if canImport(Glibc)
import Glibc
#endif

/// The project's one lock: a value guarded by a pthread mutex. Every lock in the code is one of
/// these, and each is listed on `docs/THREADS.md` with what it guards.
///
/// A pthread mutex rather than `Synchronization.Mutex`: ThreadSanitizer understands pthread locks
/// (it reports false races inside `Mutex.withLock` on Linux), so `make tsan` sees through this one.
/// Hold it only for short, non-suspending work; never call out to code that may take another lock.
///
/// `@unchecked Sendable`: `state` is read and written only between lock and unlock.
public final class Lock<State>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var state: State

    public init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
