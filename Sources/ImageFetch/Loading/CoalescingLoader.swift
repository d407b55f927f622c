import Synchronization

/// Shares one load between identical requests in flight (same source, same validators, same
/// `NetworkOptions`: `LoadRequest.coalescingKey`): different
/// variants of one source, or the same source on two list lines, download it once.
public final class CoalescingLoader: DataLoading, Sendable {
    let base: any DataLoading
    private let inFlight = Mutex<[String: Task<Result<LoadResponse, FetchError>, Never>]>([:])

    public init(_ base: any DataLoading) { self.base = base }

    public func prepare(for source: Source) { base.prepare(for: source) }

    public func cancelAll() { base.cancelAll() }

    public func load(_ request: LoadRequest) async throws(FetchError) -> LoadResponse {
        let key = request.coalescingKey
        let base = self.base
        let (task, owner) = inFlight.withLock { map in
            if let existing = map[key] { return (existing, false) }
            let task = Task { () -> Result<LoadResponse, FetchError> in
                do throws(FetchError) { return .success(try await base.load(request)) } catch { return .failure(error) }
            }
            map[key] = task
            return (task, true)
        }
        let result = await withTaskCancellationHandler { await task.value } onCancel: { if owner { task.cancel() } }
        if owner { inFlight.withLock { $0[key] = nil } }
        var response = try result.get()
        if !owner { response.downloadedBytes = 0 }
        return response
    }
}
