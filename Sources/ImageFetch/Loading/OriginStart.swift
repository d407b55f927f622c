/// The curl engine's origin gate of one transfer (`ifc_request.start_wait` / `answered`): right
/// before the transfer starts, the engine asks the origin's `OriginSchedule` how long to wait; when
/// it ends, the schedule hears its status (a 429/503 holds the origin before the engine starts
/// another transfer). Both run on the loop thread. Its owner (`HTTPLoader`) keeps it alive until
/// the transfer's `perform` has returned.
public final class OriginStart: Sendable {
    let schedule: OriginSchedule
    let origin: String

    public init(schedule: OriginSchedule, origin: String) {
        self.schedule = schedule
        self.origin = origin
    }

    /// The C callbacks and their context (this object, unretained).
    var gate: OriginGateCallbacks {
        OriginGateCallbacks(context: Unmanaged.passUnretained(self).toOpaque(), startWait: { ctx in
            guard let ctx else { return 0 }
            let start = Unmanaged<OriginStart>.fromOpaque(ctx).takeUnretainedValue()
            let seconds = start.schedule.delayStarting(start.origin)
            return seconds > 0 ? Int(min(seconds * 1000, 86_400_000).rounded(.up)) : 0
        }, answered: { ctx, status in
            guard let ctx else { return }
            let start = Unmanaged<OriginStart>.fromOpaque(ctx).takeUnretainedValue()
            start.schedule.answered(start.origin, status: status)
        })
    }
}

/// `OriginStart`'s C functions and context, as `TransferRequest.gate` carries them.
/// `@unchecked Sendable`: `context` is only passed back to the two functions, on the loop thread.
public struct OriginGateCallbacks: @unchecked Sendable {
    public let context: UnsafeMutableRawPointer
    public let startWait: @convention(c) (UnsafeMutableRawPointer?) -> Int
    public let answered: @convention(c) (UnsafeMutableRawPointer?, Int) -> Void
}
