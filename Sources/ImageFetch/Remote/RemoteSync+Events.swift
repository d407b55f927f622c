/// What a push or pull tells as it goes, in order: each failure's message (never a credential) as
/// it happens, then its summary, last.
public enum RemoteSyncEvent: Sendable, Equatable {
    case failure(String)
    case finished(RemoteSyncSummary)
}

extension RemoteSync {
    /// The events of one push or pull (`RemoteSyncEvent`), handed over as prefetch's results are: a
    /// bounded channel to one reader. Cancelling the task that reads them cancels the run.
    public typealias Events = ChannelSequence<RemoteSyncEvent>
    typealias Channel = ResultChannel<RemoteSyncEvent>
}

extension ChannelSequence where Element == RemoteSyncEvent {
    /// Runs `body` in a task of its own; its summary is the last event.
    static func start(_ body: @escaping @Sendable (RemoteSync.Channel) async -> RemoteSyncSummary) -> RemoteSync.Events {
        start(capacity: 64) { channel in
            let summary = await body(channel)
            await channel.send(.finished(summary))
        }
    }
}
