import ImageFetch
import Synchronization

/// The one place that draws a status line on stderr (prefetch's progress bar, get's download
/// meter): it always fits the terminal (its width is read with TIOCGWINSZ and again on SIGWINCH;
/// `COLUMNS` or 80 elsewhere), one column short of it so the cursor never wraps: what does not fit
/// is left out, least important part first, then the bar. With `TERM=dumb` (or off a terminal) it
/// is plain text: a carriage return and spaces overwrite the previous line, no escape codes.
/// Coloured parts are red on a terminal, unless `NO_COLOR` is set.
/// Used from one task: no lock. A resize (SIGWINCH, another thread) only raises a flag; the next
/// draw reads the new width. The line owns the one timer of a redraw (`tick`): it wakes the task
/// that draws, which redraws from what it reads then.
final class StatusLine {
    struct Style: Sendable, Equatable {
        /// Erase with `ESC [ K` (else overwrite with spaces).
        var escapes: Bool
        /// Colour the parts marked so.
        var color: Bool
    }

    /// One piece of the line; `priority` 0 and 1 are never left out, higher ones go first. A part
    /// takes at least `width` columns, padded with spaces before its text (counts line up).
    struct Part {
        var text: String
        var priority: Int
        var colored = false
        var width = 0
        /// The text padded to `width`.
        var padded: String { String(repeating: " ", count: max(0, width - text.count)) + text }
    }

    let style: Style
    private(set) var columns: Int
    /// Visible characters on the line now (0 when cleared).
    private(set) var shown = 0
    /// Raised by SIGWINCH.
    private let resizedFlag = ResizeFlag()
    private let columnsOverride: Bool

    init(isTerminal: Bool = Console.stderrIsTerminal, environment: (String) -> String? = Console.environment) {
        let term = environment("TERM") ?? ""
        let escapes = isTerminal && term != "dumb" && !term.isEmpty
        style = Style(escapes: escapes, color: escapes && (environment("NO_COLOR") ?? "").isEmpty)
        let fallback = environment("COLUMNS").flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? 80
        columns = isTerminal ? Terminal.columns(fd: 2) ?? fallback : fallback
        columnsOverride = !isTerminal
        if isTerminal {
            let flag = resizedFlag
            Terminal.onResize { flag.raise() }
        }
    }

    /// The redraw timer (`tick`), until `stopTicking` or the line's end.
    private var timer: Task<Void, Never>?

    deinit { timer?.cancel() }

    /// Calls `wake` every `interval` seconds, from a task of its own, until `stopTicking`: it wakes
    /// the task that draws this line (never draws itself).
    func tick(every interval: Double, _ wake: @escaping @Sendable () -> Void) {
        timer?.cancel()
        timer = Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
                if !Task.isCancelled { wake() }
            }
        }
    }

    func stopTicking() {
        timer?.cancel()
        timer = nil
    }

    /// True once after SIGWINCH (the width is read again): the caller should draw now.
    func resized() -> Bool {
        guard resizedFlag.take(), !columnsOverride, let width = Terminal.columns(fd: 2) else { return false }
        columns = width
        return true
    }

    /// Replaces the line with `parts`, after a bar filled to `fraction` (0...1) when given.
    func draw(_ parts: [Part], fraction: Double?) {
        let line = render(parts, fraction: fraction, width: max(1, columns - 1))
        let padding = style.escapes ? "\u{1B}[K" : String(repeating: " ", count: max(0, shown - line.visible))
        shown = line.visible
        Console.err("\r" + line.text + padding)
    }

    /// Removes the line, so that a message (or the summary) starts clean.
    func clear() {
        guard shown > 0 else { return }
        Console.err(style.escapes ? "\r\u{1B}[K" : "\r" + String(repeating: " ", count: shown) + "\r")
        shown = 0
    }

    /// The line of `parts` in at most `width` visible columns, and how many it takes.
    func render(_ parts: [Part], fraction: Double?, width: Int) -> (text: String, visible: Int) {
        var parts = parts
        func length(_ parts: [Part]) -> Int {
            parts.reduce(0) { $0 + max($1.text.count, $1.width) } + 2 * max(0, parts.count - 1)
        }
        // Leave out the least important parts until the text leaves room for a bar of 10, then
        // until it fits at all.
        let barRoom = fraction == nil ? 0 : 10 + 4
        while length(parts) + barRoom > width, let drop = parts.indices.filter({ parts[$0].priority > 1 }).max(by: { parts[$0].priority < parts[$1].priority }) {
            parts.remove(at: drop)
        }
        var text = parts.map { part in
            style.color && part.colored && !part.text.isEmpty ? "\u{1B}[31m" + part.padded + "\u{1B}[39m" : part.padded
        }.joined(separator: "  ")
        var visible = length(parts)
        if let fraction, width - visible >= 8 {
            let inner = min(40, width - visible - 4)
            let filled = Int(min(1, max(0, fraction)) * Double(inner))
            text = "[" + String(repeating: "=", count: filled) + String(repeating: " ", count: inner - filled) + "]  " + text
            visible += inner + 4
        }
        if visible > width {
            // Still too wide (a very narrow terminal): the plain parts, cut at the width.
            let plain = String(parts.map(\.padded).joined(separator: "  ").prefix(width))
            return (plain, plain.count)
        }
        return (text, visible)
    }
}

/// A resize seen by the signal handler, taken by the next draw.
final class ResizeFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .releasing) }
    func take() -> Bool { raised.exchange(false, ordering: .acquiringAndReleasing) }
}
