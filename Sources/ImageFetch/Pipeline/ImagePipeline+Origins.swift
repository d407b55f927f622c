/// The origins' state (`OriginGate`) around each network load: `OriginGatedLoader`, innermost in
/// the loader chain (after the rate limiter's wait, just before the transfer), asks the gate before
/// the load (marked down: `hostDown` at once; held by a 429/503: it waits) and tells it how the load
/// went; the load carries the origin's `OriginStart`, so the curl engine asks the origin's schedule
/// again right before the transfer starts (a hold set while it was queued holds it too). The
/// pipeline decides the holds, after a 429 or 503: the retry's wait, or none; this loader tells
/// the schedule what calls for a backoff (a 429 or 503 without `Retry-After`, a timeout, a reset:
/// `struck`) and what ends one (any other answer: `cleared`).
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
        let overridden = !request.network.resolve.isEmpty
        var request = request
        request.originStart = OriginStart(schedule: gate.schedule, origin: origin)
        while true {
            switch await gate.admit(origin, overridden: overridden) {
            case .go:
                do throws(FetchError) {
                    let response = try await base.load(request)
                    OriginGatedLoader.tell(gate.schedule, origin, response.failure)
                    await gate.record(origin, error: nil, overridden: overridden)
                    return response
                } catch {
                    OriginGatedLoader.tell(gate.schedule, origin, error)
                    await gate.record(origin, error: error, overridden: overridden)
                    throw error
                }
            case .down(let error): throw error
            case .wait(let seconds): try await sleeper.sleep(seconds: seconds)
            }
        }
    }
}

extension OriginGatedLoader {
    /// What an attempt's outcome (`failure` nil: an answer that is not an error) means for the
    /// origin's backoff.
    static func tell(_ schedule: OriginSchedule, _ origin: String, _ failure: FetchError?) {
        switch failure {
        case nil: schedule.cleared(origin)
        case .httpStatus(let status, let retryAfter)?:
            if status != 429 && status != 503 { schedule.cleared(origin) } else if retryAfter == nil { schedule.struck(origin, throttled: true) }
        case let error?:
            if [.timeout, .connectTimeout, .reset].contains(error.cause) { schedule.struck(origin) }
        }
    }
}

extension ImagePipeline {
    /// After a 429 or 503 that will be retried in `wait` seconds (nil: not retried): every request
    /// to the origin waits as long (none: the hold its answer set while this was decided ends).
    /// True when it held the origin (the retry notice says the host is waiting).
    @discardableResult
    func holdOrigin(_ source: Source, after error: FetchError, wait: Double?) -> Bool {
        guard let origins, source.isNetwork, let origin = source.origin, case .httpStatus(let status, _) = error,
              status == 429 || status == 503 else { return false }
        guard let wait else {
            origins.schedule.release(origin)
            return false
        }
        origins.schedule.hold(origin, for: wait)
        return true
    }
}
