import ImageFetch

/// Prefetch's one-line progress bar on stderr (drawn by `StatusLine`): done/total (or done alone,
/// without a total), images/s, bytes and bytes/s, the transfers in flight, failures, ETA. Redrawn
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

    /// The parts of the line for `s`, in order of display.
    func parts(_ s: State, elapsed: Double) -> [StatusLine.Part] {
        let rate = elapsed > 0 ? Double(s.done) / elapsed : 0
        let total = s.total.flatMap { $0 > 0 ? $0 : nil }
        var parts: [StatusLine.Part] = []
        if let total {
            parts.append(.init(text: "\(s.done)/\(total)", priority: 0))
            if rate > 0, s.done < total { parts.append(.init(text: "ETA " + Formatting.duration(Double(total - s.done) / rate), priority: 3)) }
        } else {
            parts.append(.init(text: "\(s.done) done", priority: 0))
        }
        parts.append(.init(text: "\(Int(rate)) img/s", priority: 6))
        parts.append(.init(text: Formatting.size(s.bytes), priority: 4))
        if elapsed > 0, s.transfers.total > 0 {
            parts.append(.init(text: Formatting.size(Int64(Double(s.transfers.total) / elapsed)) + "/s", priority: 5))
        }
        if s.transfers.running > 0 { parts.append(.init(text: "\(s.transfers.running) in flight", priority: 7)) }
        if s.failed > 0 { parts.append(.init(text: "\(s.failed) failed", priority: 1, colored: true)) }
        return parts
    }
}
