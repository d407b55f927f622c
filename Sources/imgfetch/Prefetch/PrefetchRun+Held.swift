import ImageFetch

/// The summary's account of the origins their own throttling held (a 429 or 503, with
/// `Retry-After` or backed off without one, a timeout, a reset): a line each on stderr, an object
/// each in the `--json` summary, the longest held first, at most `shownOrigins` of them.
extension PrefetchRun {
    static let shownOrigins = 20

    /// `ORIGIN held 12.5 s (4 holds)`, then `and N more origins held 3.2 s in all`.
    var heldOriginLines: [String] {
        let shown = heldOrigins.prefix(PrefetchRun.shownOrigins)
        var lines = shown.map { held in
            "\(TerminalText.escaped(held.origin)) held \(Formatting.seconds(held.seconds)) by its throttling (\(held.times) hold\(held.times == 1 ? "" : "s"))"
        }
        let rest = heldOrigins.dropFirst(PrefetchRun.shownOrigins)
        if !rest.isEmpty {
            lines.append("and \(rest.count) more origin\(rest.count == 1 ? "" : "s") held \(Formatting.seconds(rest.reduce(0) { $0 + $1.seconds })) in all")
        }
        return lines
    }

    /// `{"origin": ..., "held_s": ..., "holds": N}` for each origin shown.
    var heldOriginObjects: [JSONObject] {
        heldOrigins.prefix(PrefetchRun.shownOrigins).map { held in
            var o = JSONObject()
            o.add("origin", held.origin)
            o.add("held_s", (held.seconds * 1000).rounded() / 1000)
            o.add("holds", held.times)
            return o
        }
    }
}
