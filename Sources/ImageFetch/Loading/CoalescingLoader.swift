/// Shares one load between identical requests in flight (the whole `LoadRequest` but its body
/// tap): different variants of one source, or the same source on two list lines, download it once.
public final class CoalescingLoader: DataLoading, Sendable {
    let base: any DataLoading
    private let loads = TaskCoalescer<LoadRequest, Result<LoadResponse, FetchError>>()

    public init(_ base: any DataLoading) { self.base = base }

    public func prepare(for source: Source) { base.prepare(for: source) }

    public func cancelAll() { base.cancelAll() }

    public func load(_ request: LoadRequest) async throws(FetchError) -> LoadResponse {
        let base = self.base
        let (result, shared) = await loads.value(for: request, cancelled: .failure(.cancelled)) {
            do throws(FetchError) { return .success(try await base.load(request)) } catch { return .failure(error) }
        }
        var response = try result.get()
        if shared { response.downloadedBytes = 0 }
        return response
    }
}
