/// Failures counted by cause over a run (the prefetch summary's `causes`, a shard's stats): the one
/// accumulator of them, so every report counts the same way.
public struct CauseCounts: Sendable, Equatable {
    private var counts: [FailureCause: Int] = [:]

    public init() {}

    /// Counts `error` under its cause (`FetchError.cause`).
    public mutating func add(_ error: FetchError) { counts[error.cause, default: 0] += 1 }

    public subscript(cause: FailureCause) -> Int { counts[cause] ?? 0 }

    /// The causes met and their counts, in `FailureCause`'s order.
    public var entries: [(cause: FailureCause, count: Int)] {
        FailureCause.allCases.compactMap { c in counts[c].map { (c, $0) } }
    }

    public var isEmpty: Bool { counts.isEmpty }
}

/// The per-phase timing of a run's records, in a bounded sketch: one log-scaled histogram per phase
/// (buckets 2% wide from 0.1 ms to ~17 h, so a percentile is within 2% of the true value), never
/// every sample. A phase's percentiles are over the records where it took time.
public struct TimingSketch: Sendable, Equatable {
    static let gamma = 1.02
    static let smallest = 0.1
    static let buckets = 1024
    private var counts = [[UInt32]](repeating: [], count: Timing.phases.count)
    private var totals = [Int](repeating: 0, count: Timing.phases.count)

    public init() {}

    public mutating func add(_ timing: Timing) {
        for (phase, value) in timing.values.enumerated() where value > 0 && value.isFinite {
            if counts[phase].isEmpty { counts[phase] = [UInt32](repeating: 0, count: TimingSketch.buckets) }
            let index = min(TimingSketch.buckets - 1, max(0, Int((log(max(value, TimingSketch.smallest) / TimingSketch.smallest)
                                                                 / log(TimingSketch.gamma)).rounded(.up))))
            counts[phase][index] &+= 1
            totals[phase] += 1
        }
    }

    /// Samples of the phase at `index` (`Timing.phases`' order).
    public func samples(_ phase: Int) -> Int { totals[phase] }

    /// The `q`-quantile (0...1) of the phase at `index`, in ms (one decimal); nil without samples.
    public func quantile(_ phase: Int, _ q: Double) -> Double? {
        guard totals[phase] > 0 else { return nil }
        let rank = max(1, Int((q * Double(totals[phase])).rounded(.up)))
        var seen = 0
        for (index, count) in counts[phase].enumerated() {
            seen += Int(count)
            if seen >= rank {
                let value = TimingSketch.smallest * pow(TimingSketch.gamma, Double(index))
                return (value * 10).rounded() / 10
            }
        }
        return nil
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
