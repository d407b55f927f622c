import ImageFetch

/// The record fields of issue 32: `timing` (ms per phase) and the summary's `causes` and timing
/// percentiles.
extension ResultRecord {
    /// `{"dns":..,"connect":..,...,"store":..}` in milliseconds.
    static func timing(_ t: Timing) -> JSONObject {
        var o = JSONObject()
        for (name, value) in zip(Timing.phases, t.values) { o.add(name, value) }
        return o
    }

    /// `{"dns":3,"refused":1}`: failures by cause, in the causes' order.
    static func causes(_ c: CauseCounts) -> JSONObject {
        var o = JSONObject()
        for (cause, count) in c.entries { o.add(cause.rawValue, count) }
        return o
    }

    /// `{"dns":{"p50":..,"p90":..,"p99":..,"samples":N},...}` for the phases that took time.
    static func percentiles(_ sketch: TimingSketch) -> JSONObject {
        var o = JSONObject()
        for (index, name) in Timing.phases.enumerated() where sketch.samples(index) > 0 {
            var p = JSONObject()
            p.add("p50", sketch.quantile(index, 0.5))
            p.add("p90", sketch.quantile(index, 0.9))
            p.add("p99", sketch.quantile(index, 0.99))
            p.add("samples", sketch.samples(index))
            o.add(name, object: p)
        }
        return o
    }

    /// `dns 1.2, connect 0.4, ...`: the phases that took time (get -v).
    static func phasesLine(_ t: Timing) -> String {
        let parts = zip(Timing.phases, t.values).filter { $0.1 > 0 }.map { "\($0.0) \(ResultRecord.ms($0.1))" }
        return parts.isEmpty ? "no phase took time" : parts.joined(separator: ", ")
    }

    /// `p50/p90/p99 ms: dns 1/2/3, ...` (the text summary).
    static func percentilesLine(_ sketch: TimingSketch) -> String? {
        let parts = Timing.phases.enumerated().compactMap { index, name -> String? in
            guard let p50 = sketch.quantile(index, 0.5), let p90 = sketch.quantile(index, 0.9),
                  let p99 = sketch.quantile(index, 0.99) else { return nil }
            return "\(name) \(ResultRecord.ms(p50))/\(ResultRecord.ms(p90))/\(ResultRecord.ms(p99))"
        }
        return parts.isEmpty ? nil : "timing p50/p90/p99 ms: " + parts.joined(separator: ", ")
    }
}

extension ResultRecord {
    /// A millisecond value as the records print it: one decimal, "12" when whole.
    static func ms(_ value: Double) -> String {
        let v = (value * 10).rounded() / 10
        return v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}
