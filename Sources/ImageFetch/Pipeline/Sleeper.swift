/// Waits between retries. The default sleeps for real; tests use a recording fake.
public protocol Sleeping: Sendable {
    func sleep(seconds: Double) async throws(FetchError)
}

public struct TaskSleeper: Sleeping {
    public init() {}
    public func sleep(seconds: Double) async throws(FetchError) {
        let clamped = seconds.isFinite ? min(max(0, seconds), 86_400) : 0
        do { try await Task.sleep(nanoseconds: UInt64(clamped * 1e9)) } catch { throw .cancelled }
    }
}
