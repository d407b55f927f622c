import ImageFetch
import Synchronization

/// A one-line progress bar on stderr: done/total (or done alone, without a total), rate, bytes,
/// failures, ETA. Redrawn at most 10 times a second; only used when stderr is a terminal (or
/// `--progress`).
///
/// The line always fits the terminal (its width is read with TIOCGWINSZ and again on SIGWINCH;
/// `COLUMNS` or 80 elsewhere), one column short of it so the cursor never wraps: what does not fit
/// is left out (rate, bytes, ETA, then the bar). With `TERM=dumb` (or off a terminal) it is plain
/// text: a carriage return and spaces overwrite the previous line, no escape codes. The count of
/// failures is red on a terminal, unless `NO_COLOR` is set.
/// Used from one task (the run's reader of results): no lock. A resize (SIGWINCH, another thread)
/// only raises a flag; the next update reads the new width and redraws.
final class ProgressBar {
    struct State {
        var done = 0
        var failed = 0
        var bytes: Int64 = 0
        var lastDraw = 0.0
        var total: Int?
        var columns: Int
        /// Visible characters on the line now (0 when cleared).
        var shown = 0
    }

    struct Style: Sendable, Equatable {
        /// Erase with `ESC [ K` (else overwrite with spaces).
        var escapes: Bool
        /// Colour the count of failures.
        var color: Bool
    }

    private var state: State
    /// Raised by SIGWINCH.
    private let resizedFlag = ResizeFlag()
    let style: Style
    private let started = FileSystem.monotonic()
    private let columnsOverride: Bool

    init(total: Int?, isTerminal: Bool = Console.stderrIsTerminal, environment: (String) -> String? = Console.environment) {
        let term = environment("TERM") ?? ""
        let escapes = isTerminal && term != "dumb" && !term.isEmpty
        style = Style(escapes: escapes, color: escapes && (environment("NO_COLOR") ?? "").isEmpty)
        let fallback = environment("COLUMNS").flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? 80
        let columns = isTerminal ? Terminal.columns(fd: 2) ?? fallback : fallback
        columnsOverride = !isTerminal
        state = State(total: total, columns: columns)
        if isTerminal {
            let flag = resizedFlag
            Terminal.onResize { flag.raise() }
        }
    }

    func update(done: Int, failed: Int, bytes: Int64, force: Bool = false) {
        let now = FileSystem.monotonic()
        state.done = done; state.failed = failed; state.bytes = bytes
        // The last count is always drawn (a throttled one would be cleared unseen).
        var force = force || (state.total.map { done >= $0 } ?? false)
        // After SIGWINCH: the new width, and a redraw now.
        if resizedFlag.take(), !columnsOverride, let columns = Terminal.columns(fd: 2) {
            state.columns = columns
            force = true
        }
        guard force || now - state.lastDraw >= 0.1 else { return }
        state.lastDraw = now
        Console.err(draw(&state, elapsed: now - started))
    }

    /// Removes the bar so the summary line (or a message) starts clean.
    func finish() {
        let text = clear(state)
        state.shown = 0
        if !text.isEmpty { Console.err(text) }
    }

    /// What to write to replace the line with the current state.
    private func draw(_ s: inout State, elapsed: Double) -> String {
        let line = render(s, elapsed: elapsed, width: max(1, s.columns - 1))
        let padding = style.escapes ? "\u{1B}[K" : String(repeating: " ", count: max(0, s.shown - line.visible))
        s.shown = line.visible
        return "\r" + line.text + padding
    }

    private func clear(_ s: State) -> String {
        guard s.shown > 0 else { return "" }
        return style.escapes ? "\r\u{1B}[K" : "\r" + String(repeating: " ", count: s.shown) + "\r"
    }

    /// The line for `s` in at most `width` visible columns, and how many it takes.
    func render(_ s: State, elapsed: Double, width: Int) -> (text: String, visible: Int) {
        let rate = elapsed > 0 ? Double(s.done) / elapsed : 0
        let total = s.total.flatMap { $0 > 0 ? $0 : nil }
        // Parts in order of display; `priority` 0 is kept longest.
        var parts: [(text: String, priority: Int, colored: Bool)] = []
        if let total {
            parts.append(("\(s.done)/\(total)", 0, false))
            if rate > 0, s.done < total { parts.append(("ETA " + Formatting.duration(Double(total - s.done) / rate), 3, false)) }
        } else {
            parts.append(("\(s.done) done", 0, false))
        }
        parts.append(("\(Int(rate)) img/s", 5, false))
        parts.append((Formatting.size(s.bytes), 4, false))
        if s.failed > 0 { parts.append(("\(s.failed) failed", 1, true)) }

        func length(_ parts: [(text: String, priority: Int, colored: Bool)]) -> Int {
            parts.reduce(0) { $0 + $1.text.count } + 2 * max(0, parts.count - 1)
        }
        // Leave out the least important parts until the text leaves room for a bar of 10, then
        // until it fits at all.
        let barRoom = total == nil ? 0 : 10 + 4
        while length(parts) + barRoom > width, let drop = parts.indices.filter({ parts[$0].priority > 1 }).max(by: { parts[$0].priority < parts[$1].priority }) {
            parts.remove(at: drop)
        }
        var text = parts.map { part in
            style.color && part.colored ? "\u{1B}[31m" + part.text + "\u{1B}[39m" : part.text
        }.joined(separator: "  ")
        var visible = length(parts)
        if let total, width - visible >= 8 {
            let inner = min(40, width - visible - 4)
            let fraction = min(1, Double(s.done) / Double(total))
            let filled = Int(fraction * Double(inner))
            text = "[" + String(repeating: "=", count: filled) + String(repeating: " ", count: inner - filled) + "]  " + text
            visible += inner + 4
        }
        if visible > width {
            // Still too wide (a very narrow terminal): the plain parts, cut at the width.
            let plain = String(parts.map(\.text).joined(separator: "  ").prefix(width))
            return (plain, plain.count)
        }
        return (text, visible)
    }
}

/// A resize seen by the signal handler, taken by the next update.
final class ResizeFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .releasing) }
    func take() -> Bool { raised.exchange(false, ordering: .acquiringAndReleasing) }
}
