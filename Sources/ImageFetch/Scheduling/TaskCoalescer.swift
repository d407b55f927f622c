import Synchronization

/// Shares one task between the callers that ask for the same key while it is in flight (Nuke's
/// `TaskPool`): the first caller starts it, later ones wait for the same value. The task is
/// cancelled only when its last waiter has left; a waiter that is cancelled leaves at once with
/// `cancelled`, and the others keep waiting. Used for every kind of shared work: retrievals
/// (keyed by `RequestPlan.retrievalKey`) and downloads (keyed by `LoadRequest`).
public final class TaskCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Flight {
        let id: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Value, Never>]
    }

    private struct State {
        var flights: [Key: Flight] = [:]
    }

    private let state = Lock(State())
    /// Ids of waiters and flights.
    private let ids = Atomic<UInt64>(0)

    public init() {}

    /// The value of the task for `key`: started with `make` when none is in flight, else shared.
    /// `shared` is true for a caller that joined a task another started. Returns `cancelled` at
    /// once when the calling task is cancelled.
    public func value(for key: Key, cancelled: Value,
                      _ make: @escaping @Sendable () async -> Value) async -> (value: Value, shared: Bool) {
        let waiter = ids.wrappingAdd(1, ordering: .relaxed).newValue
        return await withTaskCancellationHandler {
            var shared = false
            let value = await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                shared = join(key, waiter: waiter, continuation, cancelled: cancelled, make)
            }
            return (value, shared)
        } onCancel: {
            leave(key, waiter: waiter, with: cancelled)
        }
    }

    /// The number of tasks in flight (for tests).
    public var count: Int { state.withLock { $0.flights.count } }

    /// Registers a waiter; true when it joined a task in flight.
    private func join(_ key: Key, waiter: UInt64, _ continuation: CheckedContinuation<Value, Never>,
                      cancelled: Value, _ make: @escaping @Sendable () async -> Value) -> Bool {
        // Under the lock, like `leave`: a cancel either finds this waiter registered or is seen here.
        let (start, shared) = state.withLock { s -> (UInt64?, Bool) in
            if Task.isCancelled {
                continuation.resume(returning: cancelled)
                return (nil, false)
            }
            if s.flights[key] != nil {
                s.flights[key]!.waiters[waiter] = continuation
                return (nil, true)
            }
            let id = ids.wrappingAdd(1, ordering: .relaxed).newValue
            s.flights[key] = Flight(id: id, task: nil, waiters: [waiter: continuation])
            return (id, false)
        }
        guard let flight = start else { return shared }
        let task = Task { [self] in
            let value = await make()
            finish(key, flight: flight, with: value)
        }
        let cancelNow = state.withLock { s -> Bool in
            guard s.flights[key]?.id == flight else { return true }   // every waiter left already
            s.flights[key]!.task = task
            return false
        }
        if cancelNow { task.cancel() }
        return false
    }

    private func leave(_ key: Key, waiter: UInt64, with cancelled: Value) {
        let (continuation, orphan) = state.withLock { s -> (CheckedContinuation<Value, Never>?, Task<Void, Never>?) in
            guard var flight = s.flights[key], let continuation = flight.waiters.removeValue(forKey: waiter) else { return (nil, nil) }
            if flight.waiters.isEmpty {
                s.flights[key] = nil
                return (continuation, flight.task)
            }
            s.flights[key] = flight
            return (continuation, nil)
        }
        orphan?.cancel()
        continuation?.resume(returning: cancelled)
    }

    private func finish(_ key: Key, flight: UInt64, with value: Value) {
        let waiters = state.withLock { s -> [CheckedContinuation<Value, Never>] in
            guard let current = s.flights[key], current.id == flight else { return [] }
            s.flights[key] = nil
            return Array(current.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }
}
