/// The values a driver task hands over through a bounded `ResultChannel`, read by one task: what a
/// prefetch's results (`Prefetcher.Results`) and a push's or pull's events (`RemoteSync.Events`) are.
/// Cancelling the task that reads them, or `cancel()`, cancels the driver.
public struct ChannelSequence<Element: Sendable>: AsyncSequence, Sendable {
    let channel: ResultChannel<Element>
    let driver: Task<Void, Never>

    /// Runs `body` in a driver task over a channel of `capacity` values, finished when `body` returns.
    static func start(capacity: Int, _ body: @escaping @Sendable (ResultChannel<Element>) async -> Void) -> ChannelSequence {
        let channel = ResultChannel<Element>(capacity: capacity)
        let driver = Task {
            await body(channel)
            channel.finish()
        }
        return ChannelSequence(channel: channel, driver: driver)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let sequence: ChannelSequence
        public mutating func next() async -> Element? {
            while true {
                switch await sequence.receive() {
                case .value(let element): return element
                case .finished: return nil
                case .woken: continue
                }
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(sequence: self) }

    /// Stops the driver (as cancelling the reader does): from any thread or task.
    public func cancel() { driver.cancel() }

    /// The next value, `.finished`, or `.woken` after a `wake()` (`ResultChannel.receive`).
    func receive() async -> ResultChannel<Element>.Received {
        let driver = self.driver
        return await withTaskCancellationHandler { await channel.receive() } onCancel: { driver.cancel() }
    }

    /// Makes the reader's next `receive` return `.woken` (from any thread or task).
    func wake() { channel.wake() }
}
