import Synchronization

/// What a pipeline is doing now: the transfers' meter (bytes, length, transfers running), read on
/// the caller's schedule, and the retry notices, events handed to the caller as they are posted:
/// a waiting `nextNotices` returns, and the run's listener (`FetchRun`: it wakes the run's reader)
/// is told. The library prints nothing.
public final class PipelineActivity: Sendable {
    /// Every http transfer of the pipeline counts on it.
    public let meter = TransferMeter()
    private let notices = NoticeBoard()
    /// Attempts in flight: from a load's start until its image is stored (or it failed).
    private let attempts = Atomic<Int>(0)

    /// Attempts in flight now: a body being downloaded, or downloaded and not yet processed and
    /// stored. A caller that stops on a signal lets these finish (their loads cancelled: what came
    /// is kept to be resumed, or stored whole), and may exit at once when there are none.
    public var attemptsInFlight: Int { attempts.load(ordering: .acquiring) }

    /// Runs `body` as one attempt in flight.
    func attempt<T>(_ body: () async throws(FetchError) -> T) async throws(FetchError) -> T {
        attempts.add(1, ordering: .releasing)
        defer { attempts.subtract(1, ordering: .releasing) }
        return try await body()
    }

    public init() {}

    /// The retry notices posted since the last call, oldest first.
    public func takeNotices() async -> [RetryNotice] { notices.take() }

    /// The notices posted since the last take, once there is at least one, or once `wake()` is
    /// called (then possibly none): no timer of its own. It returns at once, possibly with none,
    /// when the calling task is cancelled. One reader at a time.
    public func nextNotices() async -> [RetryNotice] {
        let board = notices
        await withTaskCancellationHandler { await board.awaitPost() } onCancel: { board.release() }
        return board.take()
    }

    /// Lets a reader waiting in `nextNotices` go (the status line's timer: it redraws, then waits
    /// again). From any thread or task.
    public func wake() { notices.release() }

    /// `listener` is called (outside any lock) after each notice posted: the run wakes its reader.
    func listen(_ listener: @escaping @Sendable () -> Void) { notices.listen(listener) }

    func post(_ notice: RetryNotice) async { notices.post(notice) }
}

/// The notices waiting for their reader (at most `limit`: the oldest are dropped beyond it), the
/// reader waiting for one, and who else is told of a post.
final class NoticeBoard: Sendable {
    static let limit = 1000

    private struct State {
        var waiting: [RetryNotice] = []
        /// A reader waiting in `awaitPost`.
        var reader: CheckedContinuation<Void, Never>?
        var listener: (@Sendable () -> Void)?
    }

    private let state = Lock(State())

    func listen(_ listener: @escaping @Sendable () -> Void) {
        state.withLock { $0.listener = listener }
    }

    func post(_ notice: RetryNotice) {
        let (reader, listener) = state.withLock { s in
            if s.waiting.count >= NoticeBoard.limit { s.waiting.removeFirst() }
            s.waiting.append(notice)
            defer { s.reader = nil }
            return (s.reader, s.listener)
        }
        reader?.resume()
        listener?()
    }

    /// Returns once a notice is waiting, or when `release` is called; at once when one is waiting
    /// or the calling task is cancelled (its cancel handler's `release` may then come before or
    /// after this: either way nothing hangs, and a later reader woken by it only looks again).
    func awaitPost() async {
        await withCheckedContinuation { (reader: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                guard s.waiting.isEmpty, !Task.isCancelled else { return true }
                let earlier = s.reader   // one reader at a time: an earlier one is let go
                s.reader = reader
                earlier?.resume()
                return false
            }
            if ready { reader.resume() }
        }
    }

    func release() {
        state.withLock { s in
            defer { s.reader = nil }
            return s.reader
        }?.resume()
    }

    /// The notices waiting, taken.
    func take() -> [RetryNotice] {
        state.withLock { s in
            defer { s.waiting = [] }
            return s.waiting
        }
    }
}
