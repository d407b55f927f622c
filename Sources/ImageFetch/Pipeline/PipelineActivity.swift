/// What a pipeline is doing now, for a caller to read on its own schedule: the transfers' meter
/// (bytes, length, transfers running) and the retry notices not yet taken. Values the caller asks
/// for, never callbacks: the library prints nothing.
public final class PipelineActivity: Sendable {
    /// Every http transfer of the pipeline counts on it.
    public let meter = TransferMeter()
    private let notices = NoticeBoard()

    public init() {}

    /// The retry notices posted since the last call, oldest first.
    public func takeNotices() async -> [RetryNotice] { await notices.take() }

    func post(_ notice: RetryNotice) async { await notices.post(notice) }
}

/// The notices waiting for their reader (at most `limit`: the oldest are dropped beyond it).
actor NoticeBoard {
    static let limit = 1000
    private var waiting: [RetryNotice] = []

    func post(_ notice: RetryNotice) {
        if waiting.count >= NoticeBoard.limit { waiting.removeFirst() }
        waiting.append(notice)
    }

    func take() -> [RetryNotice] {
        defer { waiting = [] }
        return waiting
    }
}
