/// A hop's attempts and the origin's state (`OriginGate`): before each attempt the origin may be
/// marked down (the hop fails at once, not retried) or held by a 429/503 (the attempt waits);
/// after it, the gate learns whether the origin answered.
extension ImagePipeline {
    /// Waits while `source`'s origin is held; throws `hostDown` when it is marked down.
    func admit(_ source: Source) async throws(FetchError) {
        guard let origins, let origin = source.origin else { return }
        while true {
            switch await origins.admit(origin) {
            case .go: return
            case .down(let error): throw error
            case .wait(let seconds): try await sleeper.sleep(seconds: seconds)
            }
        }
    }

    /// Tells the gate how an attempt to `source` went (`error` nil: it answered).
    func recordAttempt(_ source: Source, error: FetchError?) async {
        guard let origins, let origin = source.origin else { return }
        await origins.record(origin, error: error)
    }

    /// After a 429 or 503 that will be retried in `wait` seconds: every new request to the origin
    /// waits as long. True when it held the origin (the retry notice says the host is waiting).
    func holdOrigin(_ source: Source, after error: FetchError, wait: Double) async -> Bool {
        guard let origins, let origin = source.origin, case .httpStatus(let status, _) = error,
              status == 429 || status == 503 else { return false }
        await origins.hold(origin, for: wait)
        return true
    }
}
