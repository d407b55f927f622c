import Synchronization

/// A token bucket with a burst of one: at most `perSecond` requests start per second, evenly spaced.
public final class RateLimiter: Sendable {
    public let perSecond: Double
    /// The next free start time (`FileSystem.monotonic()` seconds), as the bits of a Double.
    private let nextSlot = Atomic<UInt64>(0)
    private let sleeper: any Sleeping

    public init(perSecond: Double, sleeper: any Sleeping = TaskSleeper()) {
        self.perSecond = perSecond
        self.sleeper = sleeper
    }

    /// Waits until the caller may start a request.
    public func acquire() async throws(FetchError) {
        let now = FileSystem.monotonic()
        var seen = nextSlot.load(ordering: .relaxed)
        var start: Double
        repeat {
            start = max(now, Double(bitPattern: seen))
            let (exchanged, current) = nextSlot.compareExchange(expected: seen, desired: (start + 1 / perSecond).bitPattern,
                                                                ordering: .acquiringAndReleasing)
            if exchanged { break }
            seen = current
        } while true
        if start > now { try await sleeper.sleep(seconds: start - now) }
    }
}

/// Applies a `RateLimiter` to network loads only (files and data: URLs are free).
public struct RateLimitedLoader: DataLoading {
    let base: any DataLoading
    let limiter: RateLimiter

    public init(_ base: any DataLoading, limiter: RateLimiter) {
        self.base = base
        self.limiter = limiter
    }

    public func prepare(for source: Source) { base.prepare(for: source) }

    public func cancelAll() { base.cancelAll() }

    public func load(_ request: LoadRequest) async throws(FetchError) -> LoadResponse {
        if request.source.isNetwork { try await limiter.acquire() }
        return try await base.load(request)
    }
}
