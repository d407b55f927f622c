import ImageFetch

/// `get`'s download meter on stderr (drawn by `StatusLine`): the bytes of the download so far, of
/// its length when the server sent one (then a bar and the time left), and the rate over the last
/// two seconds, from the first bytes on (readings are taken from the start, before the meter shows:
/// its first rate covers what arrived before it). Used from one task (`GetFeedback`'s): no lock.
final class DownloadMeter {
    let line: StatusLine
    /// (monotonic time, total bytes) of recent readings, oldest first: the rate's window.
    private var samples: [(time: Double, total: Int64)] = []
    static let window = 2.0

    init(isTerminal: Bool = Console.stderrIsTerminal, environment: (String) -> String? = Console.environment) {
        line = StatusLine(isTerminal: isTerminal, environment: environment)
    }

    /// Takes a reading into the rate's window without drawing. Until bytes arrive only the latest
    /// reading is kept, so the rate starts with the first bytes, not with the connection.
    func sample(_ reading: TransferMeter.Reading, now: Double = FileSystem.monotonic()) {
        if samples.count == 1, samples[0].total == reading.total {
            samples[0].time = now
        } else {
            samples.append((now, reading.total))
        }
        while let first = samples.first, now - first.time > DownloadMeter.window, samples.count > 2 { samples.removeFirst() }
    }

    func draw(_ reading: TransferMeter.Reading, now: Double = FileSystem.monotonic()) {
        sample(reading, now: now)
        _ = line.resized()
        let expected = reading.expected.flatMap { $0 > 0 ? $0 : nil }
        line.draw(parts(reading, rate: rate), fraction: expected.map { Double(reading.current) / Double($0) })
    }

    func clear() { line.clear() }

    /// Bytes per second over the window; nil before two readings.
    var rate: Double? {
        guard let first = samples.first, let last = samples.last, last.time > first.time else { return nil }
        return Double(last.total - first.total) / (last.time - first.time)
    }

    func parts(_ r: TransferMeter.Reading, rate: Double?) -> [StatusLine.Part] {
        let expected = r.expected.flatMap { $0 > 0 ? $0 : nil }
        var parts: [StatusLine.Part] = []
        if let expected {
            parts.append(.init(text: Formatting.size(r.current) + " of " + Formatting.size(expected), priority: 0))
            parts.append(.init(text: "\(min(100, Int(Double(r.current) * 100 / Double(expected))))%", priority: 2))
        } else {
            parts.append(.init(text: Formatting.size(r.current), priority: 0))
        }
        if let rate {
            parts.append(.init(text: Formatting.size(Int64(max(0, rate))) + "/s", priority: 3))
            if let expected, rate > 0, r.current < expected {
                parts.append(.init(text: "ETA " + Formatting.duration(Double(expected - r.current) / rate), priority: 4))
            }
        }
        return parts
    }
}
