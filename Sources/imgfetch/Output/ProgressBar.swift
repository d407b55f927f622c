import ImageFetch

/// Prefetch's one-line progress bar on stderr (drawn by `StatusLine`): done/total (or done alone,
/// without a total), ETA, images/s, bytes and bytes/s, the transfers in flight, failures, each in a
/// field of its own width, so the line and its bar keep one width through the run. Redrawn
/// at most 10 times a second; only used when stderr is a terminal (or `--progress`). The count of
/// failures is red on a terminal, unless `NO_COLOR` is set.
/// Used from one task (the run's reader of results): no lock.
final class ProgressBar {
    struct State {
        var done = 0
        var failed = 0
        var bytes: Int64 = 0
        var lastDraw = 0.0
        var total: Int?
        /// The transfers' meter: bytes received so far (the rate's), transfers running.
        var transfers = TransferMeter.Reading()
    }

    private var state: State
    let line: StatusLine
    var style: StatusLine.Style { line.style }
    private let started = FileSystem.monotonic()

    init(total: Int?, isTerminal: Bool = Console.stderrIsTerminal, environment: (String) -> String? = Console.environment) {
        line = StatusLine(isTerminal: isTerminal, environment: environment)
        state = State(total: total)
    }

    func update(done: Int, failed: Int, bytes: Int64, transfers: TransferMeter.Reading? = nil, force: Bool = false) {
        let now = FileSystem.monotonic()
        state.done = done; state.failed = failed; state.bytes = bytes
        if let transfers { state.transfers = transfers }
        // The last count is always drawn (a throttled one would be cleared unseen); after SIGWINCH, a redraw now.
        let force = force || (state.total.map { done >= $0 } ?? false) || line.resized()
        guard force || now - state.lastDraw >= 0.1 else { return }
        state.lastDraw = now
        let total = state.total.flatMap { $0 > 0 ? $0 : nil }
        line.draw(parts(state, elapsed: now - started), fraction: total.map { min(1, Double(state.done) / Double($0)) })
    }

    /// Removes the bar so the summary line (or a message) starts clean.
    func finish() { line.clear() }

    /// The widest each part has been (by position), so that no part narrows during a run.
    private var widest: [Int] = []

    /// The parts of the line for `s`, in order of display. The line keeps one width through a run
    /// (and so does the bar before it): every part is there from the first frame (`ETA --`, `0B/s`,
    /// `0 in flight`; the failures' room blank until there is one), each at least as wide as its
    /// usual largest value and never narrower than it has been.
    func parts(_ s: State, elapsed: Double) -> [StatusLine.Part] {
        let rate = elapsed > 0 ? Double(s.done) / elapsed : 0
        let total = s.total.flatMap { $0 > 0 ? $0 : nil }
        var parts: [StatusLine.Part] = []
        if let total {
            let digits = String(total).count
            parts.append(.init(text: "\(s.done)/\(total)", priority: 0, width: 2 * digits + 1))
            let eta = s.done >= total ? "0s" : rate > 0 ? Formatting.duration(Double(total - s.done) / rate) : "--"
            parts.append(.init(text: "ETA " + eta, priority: 3, width: 7))
        } else {
            parts.append(.init(text: "\(s.done) done", priority: 0, width: 10))
        }
        parts.append(.init(text: "\(Int(rate)) img/s", priority: 6, width: 9))
        parts.append(.init(text: Formatting.size(s.bytes), priority: 4, width: 5))
        let transferRate = elapsed > 0 ? Int64(Double(s.transfers.total) / elapsed) : 0
        parts.append(.init(text: Formatting.size(transferRate) + "/s", priority: 5, width: 7))
        parts.append(.init(text: "\(s.transfers.running) in flight", priority: 7, width: 11))
        parts.append(.init(text: s.failed > 0 ? "\(s.failed) failed" : "", priority: 1, colored: true, width: 8))
        if widest.count != parts.count { widest = parts.map(\.width) }
        for index in parts.indices {
            widest[index] = max(widest[index], parts[index].width, parts[index].text.count)
            parts[index].width = widest[index]
        }
        return parts
    }
}
