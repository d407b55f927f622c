import ImageFetch
import Synchronization

/// A one-line progress bar on stderr: done/total, rate, bytes, failures, ETA. Redrawn at most 10 times
/// a second; only used when stderr is a terminal (or `--progress`).
final class ProgressBar: Sendable {
    struct State { var done = 0; var failed = 0; var bytes: Int64 = 0; var lastDraw = 0.0; var total: Int? }
    private let state: Mutex<State>
    private let started = FileSystem.monotonic()

    init(total: Int?) { state = Mutex(State(total: total)) }

    func update(done: Int, failed: Int, bytes: Int64, force: Bool = false) {
        let now = FileSystem.monotonic()
        let line: String? = state.withLock { s in
            s.done = done; s.failed = failed; s.bytes = bytes
            guard force || now - s.lastDraw >= 0.1 else { return nil }
            s.lastDraw = now
            return render(s, elapsed: now - started)
        }
        if let line { Console.err("\r" + line + "\u{1B}[K") }
    }

    /// Removes the bar so the summary line starts clean.
    func finish() { Console.err("\r\u{1B}[K") }

    func render(_ s: State, elapsed: Double) -> String {
        let rate = elapsed > 0 ? Double(s.done) / elapsed : 0
        var parts: [String] = []
        if let total = s.total, total > 0 {
            let fraction = min(1, Double(s.done) / Double(total))
            let width = 24
            let filled = Int(fraction * Double(width))
            parts.append("[" + String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled) + "]")
            parts.append("\(s.done)/\(total)")
            if rate > 0, s.done < total { parts.append("ETA " + Formatting.duration(Double(total - s.done) / rate)) }
        } else {
            parts.append("\(s.done) done")
        }
        parts.append("\(Int(rate)) img/s")
        parts.append(Formatting.size(s.bytes))
        if s.failed > 0 { parts.append("\(s.failed) failed") }
        return parts.joined(separator: "  ")
    }
}
