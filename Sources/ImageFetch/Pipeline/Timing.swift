import Synchronization

/// Where the time of one retrieval went (`timing` in a record), in milliseconds per phase: consecutive
/// wall-clock segments that never overlap, so they sum to at most the record's `ms`. 0 for a phase
/// that did not happen. Decode work done while the body downloads (the streamed decode) is in
/// `transfer`; a fused decode+resize+encode (libvips' thumbnail) is in `decode`; `encode` is what a
/// streamed decode had left after the download, and the placeholders.
public struct Timing: Sendable, Equatable {
    public var dns: Double = 0
    public var connect: Double = 0
    public var tls: Double = 0
    public var ttfb: Double = 0
    public var transfer: Double = 0
    public var decode: Double = 0
    public var encode: Double = 0
    public var store: Double = 0

    public init() {}

    /// The phases' names, in order, as the record spells them.
    public static let phases = ["dns", "connect", "tls", "ttfb", "transfer", "decode", "encode", "store"]

    /// The phases' values in `phases`' order.
    public var values: [Double] { [dns, connect, tls, ttfb, transfer, decode, encode, store] }

    /// Milliseconds since `start` (a `FileSystem.monotonic()` reading).
    static func since(_ start: Double) -> Double { max(0, FileSystem.monotonic() - start) * 1000 }

    /// Rounded to a tenth of a millisecond, as `ms` is.
    public var rounded: Timing {
        var t = self
        for path in Timing.paths { t[keyPath: path] = (t[keyPath: path] * 10).rounded(.down) / 10 }
        return t
    }

    static var paths: [WritableKeyPath<Timing, Double>] { [\.dns, \.connect, \.tls, \.ttfb, \.transfer, \.decode, \.encode, \.store] }
}

/// libcurl's cumulative times of one transfer (`CURLINFO_*_TIME_T`), microseconds since it started;
/// 0 where the point was not reached.
public struct TransferTimes: Sendable, Equatable {
    public var dns: Int64 = 0
    public var connect: Int64 = 0
    public var tls: Int64 = 0
    public var firstByte: Int64 = 0
    public var total: Int64 = 0

    public init() {}

    /// The network phases in microseconds: each point differenced from the last one reached; the
    /// time after the last point reached goes to the phase that was under way (a connect that timed
    /// out is all `connect`). `secure`: the transfer does a TLS handshake (https).
    func phases(secure: Bool) -> [Int64] {
        let points = [dns, connect, secure ? tls : -1, firstByte]
        var out = [Int64](repeating: 0, count: 5)
        var reached: Int64 = 0
        for (index, point) in points.enumerated() where point != -1 {
            guard point > 0 else {
                out[index] = max(0, total - reached)   // under way when the transfer ended
                return out
            }
            out[index] = max(0, point - reached)
            reached = max(reached, point)
        }
        out[4] = max(0, total - reached)
        return out
    }
}

/// The network phases of one retrieval's transfers, added up (attempts and redirect hops): written
/// by `HTTPLoader` as each transfer ends, read by the pipeline when the retrieval ends. Atomics: a
/// shared download (`CoalescingLoader`) may end on another task.
public final class PhaseClock: Sendable {
    private let dns = Atomic<Int64>(0)
    private let connect = Atomic<Int64>(0)
    private let tls = Atomic<Int64>(0)
    private let ttfb = Atomic<Int64>(0)
    private let transfer = Atomic<Int64>(0)

    public init() {}

    func add(_ times: TransferTimes, secure: Bool) {
        let p = times.phases(secure: secure)
        dns.add(p[0], ordering: .relaxed)
        connect.add(p[1], ordering: .relaxed)
        tls.add(p[2], ordering: .relaxed)
        ttfb.add(p[3], ordering: .relaxed)
        transfer.add(p[4], ordering: .relaxed)
    }

    /// dns, connect, tls, ttfb and transfer so far, in milliseconds.
    var network: Timing {
        var t = Timing()
        t.dns = Double(dns.load(ordering: .relaxed)) / 1000
        t.connect = Double(connect.load(ordering: .relaxed)) / 1000
        t.tls = Double(tls.load(ordering: .relaxed)) / 1000
        t.ttfb = Double(ttfb.load(ordering: .relaxed)) / 1000
        t.transfer = Double(transfer.load(ordering: .relaxed)) / 1000
        return t
    }
}
