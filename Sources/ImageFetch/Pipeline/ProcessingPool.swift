import Dispatch

/// Runs blocking image work (libvips) on threads outside Swift's cooperative pool, at most `width`
/// at a time (default: the number of cores), so downloads keep flowing while images are processed.
public final class ProcessingPool: Sendable {
    public let width: Int
    let queue = DispatchQueue(label: "imgfetch.processing", attributes: .concurrent)
    private let gate: AsyncGate

    public init(width: Int = ProcessingPool.coreCount) {
        self.width = max(1, width)
        self.gate = AsyncGate(limit: max(1, width))
    }

    public static var coreCount: Int { max(1, Int(sysconfCores())) }

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws(FetchError) -> T) async throws(FetchError) -> T {
        await gate.acquire()
        defer { gate.release() }
        let result: Result<T, FetchError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(FetchError) -> T in try work() })
            }
        }
        return try result.get()
    }
}

extension ProcessingPool {
    /// Runs a short blocking wait outside Swift's cooperative pool and outside the width limit: for
    /// work that ran elsewhere (a decode during the download) and is finishing.
    public func wait<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }
}

/// A counting semaphore for async code: `acquire` suspends while `limit` holders are inside.
public final class AsyncGate: Sendable {
    struct State { var available: Int; var waiters: [CheckedContinuation<Void, Never>] = [] }
    private let state: Lock<State>

    public init(limit: Int) { state = Lock(State(available: limit)) }

    public func acquire() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.available > 0 { s.available -= 1; return true }
                s.waiters.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    /// Takes a free slot without waiting; false when none is free.
    public func tryAcquire() -> Bool {
        state.withLock { s in
            guard s.available > 0 else { return false }
            s.available -= 1
            return true
        }
    }

    public func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiters.isEmpty { s.available += 1; return nil }
            return s.waiters.removeFirst()
        }
        next?.resume()
    }
}

#if canImport(Glibc)
import Glibc
func sysconfCores() -> Int { sysconf(Int32(_SC_NPROCESSORS_ONLN)) }
#else
import Darwin
func sysconfCores() -> Int { sysconf(_SC_NPROCESSORS_ONLN) }
#endif
