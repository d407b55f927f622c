import Synchronization

/// What a pipeline is doing now, for a caller to read on its own schedule: the transfers' meter
/// (bytes, length, transfers running) and the retry notices not yet taken. Values the caller asks
/// for, never callbacks: the library prints nothing.
public final class PipelineActivity: Sendable {
    /// Every http transfer of the pipeline counts on it.
    public let meter = TransferMeter()
    private let notices = NoticeBoard()
    /// Notices posted and not yet taken (an atomic: a reader with none to take never awaits the board).
    private let waiting = Atomic<Int>(0)
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
    public func takeNotices() async -> [RetryNotice] {
        guard waiting.load(ordering: .acquiring) > 0 else { return [] }
        let taken = await notices.take()
        waiting.subtract(taken.posts, ordering: .releasing)
        return taken.notices
    }

    /// The notices posted since the last take, once there is at least one: it waits for the next
    /// post (no timer). It returns at once, possibly with none, when the calling task is cancelled.
    public func nextNotices() async -> [RetryNotice] {
        let board = notices
        await withTaskCancellationHandler { await board.awaitPost() } onCancel: { Task { await board.release() } }
        let taken = await board.take()
        waiting.subtract(taken.posts, ordering: .releasing)
        return taken.notices
    }

    func post(_ notice: RetryNotice) async {
        await notices.post(notice)
        waiting.add(1, ordering: .releasing)
    }
}

/// The notices waiting for their reader (at most `limit`: the oldest are dropped beyond it).
actor NoticeBoard {
    static let limit = 1000
    private var waiting: [RetryNotice] = []
    private var dropped = 0
    /// A reader waiting in `awaitPost`.
    private var reader: CheckedContinuation<Void, Never>?

    func post(_ notice: RetryNotice) {
        if waiting.count >= NoticeBoard.limit {
            waiting.removeFirst()
            dropped += 1
        }
        waiting.append(notice)
        release()
    }

    /// Returns once a notice is waiting, or when `release` is called; at once when one is waiting
    /// or the calling task is cancelled (its cancel handler's `release` may then come before or
    /// after this: either way nothing hangs, and a later reader woken by it only looks again).
    func awaitPost() async {
        guard waiting.isEmpty, !Task.isCancelled else { return }
        release()   // one reader at a time: an earlier one is let go
        await withCheckedContinuation { reader = $0 }
    }

    func release() {
        reader?.resume()
        reader = nil
    }

    /// The notices waiting, and how many posts they stand for (those dropped included).
    func take() -> (notices: [RetryNotice], posts: Int) {
        defer { waiting = []; dropped = 0 }
        return (waiting, waiting.count + dropped)
    }
}
