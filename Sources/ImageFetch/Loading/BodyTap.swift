/// Receives a download's body as it arrives, so work on it (a decode) can overlap the transfer.
/// The http loader calls `onData` for each piece of the final response's body (a 2xx one), in
/// order, on its transfer thread, then `onEnd` exactly once (complete = 1 only when every byte of a
/// completed transfer went through `onData`), before the load returns, whatever happens. Loaders of
/// other sources never call either. Both must return at once. A resumed download
/// (`LoadRequest.partial`) first gives `onData` the kept bytes, on the caller's thread before the
/// transfer is queued (the queueing's mutex orders it before the transfer thread's calls).
///
/// `@unchecked Sendable`: `context` is an opaque pointer only ever passed back to the two C
/// functions, which synchronise internally (see jpeg_stream.c). `owner` keeps it alive: the
/// transport holds the tap, and so its owner, from the transfer's queueing until its `onEnd` has
/// returned, whoever stopped waiting for the load before (a caller of a shared load that was
/// cancelled leaves at once while the transfer still runs: its decode must not be freed under it).
public struct BodyTap: @unchecked Sendable {
    public let context: UnsafeMutableRawPointer
    public let onData: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Void
    public let onEnd: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Void
    /// What frees `context` when it goes (its deinit); nil: the caller keeps it alive otherwise.
    public let owner: AnyObject?

    public init(context: UnsafeMutableRawPointer,
                onData: @escaping @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Void,
                onEnd: @escaping @convention(c) (UnsafeMutableRawPointer?, Int32) -> Void,
                owner: AnyObject? = nil) {
        self.context = context
        self.onData = onData
        self.onEnd = onEnd
        self.owner = owner
    }
}

extension BodyTap {
    /// Ends the tap from Swift, for a transfer that was never handed to the engine.
    func end(complete: Bool) { onEnd(context, complete ? 1 : 0) }
}
