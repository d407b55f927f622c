/// The origins' state (`OriginGate`) around each network load: `OriginGatedLoader`, innermost in
/// the loader chain (after the rate limiter's wait, just before the transfer), asks the gate before
/// the load (marked down: `hostDown` at once; held by a 429/503: it waits) and tells it how the load
/// went. The pipeline sets the holds, after deciding to retry a 429 or 503.
public struct OriginGatedLoader: DataLoading {
    let base: any DataLoading
    let gate: OriginGate
    let sleeper: any Sleeping

    public init(_ base: any DataLoading, gate: OriginGate, sleeper: any Sleeping = TaskSleeper()) {
        self.base = base
        self.gate = gate
        self.sleeper = sleeper
    }

    public func prepare(for source: Source) { base.prepare(for: source) }

    public func cancelAll() { base.cancelAll() }

    public func load(_ request: LoadRequest) async throws(FetchError) -> LoadResponse {
        guard request.source.isNetwork, let origin = request.source.origin else { return try await base.load(request) }
        while true {
            switch await gate.admit(origin) {
            case .go:
                do throws(FetchError) {
                    let response = try await base.load(request)
                    await gate.record(origin, error: nil)
                    return response
                } catch {
                    await gate.record(origin, error: error)
                    throw error
                }
            case .down(let error): throw error
            case .wait(let seconds): try await sleeper.sleep(seconds: seconds)
            }
        }
    }
}

extension ImagePipeline {
    /// After a 429 or 503 that will be retried in `wait` seconds: every new request to the origin
    /// waits as long. True when it held the origin (the retry notice says the host is waiting).
    func holdOrigin(_ source: Source, after error: FetchError, wait: Double) async -> Bool {
        guard let origins, let origin = source.origin, case .httpStatus(let status, _) = error,
              status == 429 || status == 503 else { return false }
        await origins.hold(origin, for: wait)
        return true
    }
}
