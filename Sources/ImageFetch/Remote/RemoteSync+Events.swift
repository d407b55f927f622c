/// What a push or pull tells as it goes, in order: each failure's message (never a credential) as
/// it happens, then its summary, last.
public enum RemoteSyncEvent: Sendable, Equatable {
    case failure(String)
    case finished(RemoteSyncSummary)
}

extension RemoteSync {
    /// The events of one push or pull (`RemoteSyncEvent`), handed over as prefetch's results are: a
    /// bounded channel to one reader. Cancelling the task that reads them cancels the run.
    public struct Events: AsyncSequence, Sendable {
        public typealias Element = RemoteSyncEvent
        typealias Channel = ResultChannel<RemoteSyncEvent>
        let channel: Channel
        let driver: Task<Void, Never>

        /// Runs `body` in a task of its own; its summary is the last event.
        static func start(_ body: @escaping @Sendable (Channel) async -> RemoteSyncSummary) -> Events {
            let channel = Channel(capacity: 64)
            let driver = Task {
                let summary = await body(channel)
                await channel.send(.finished(summary))
                channel.finish()
            }
            return Events(channel: channel, driver: driver)
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            let channel: Channel
            let driver: Task<Void, Never>
            public mutating func next() async -> RemoteSyncEvent? {
                let driver = self.driver
                return await withTaskCancellationHandler { await channel.next() } onCancel: { driver.cancel() }
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(channel: channel, driver: driver) }

    }
}
