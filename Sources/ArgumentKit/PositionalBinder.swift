/// Distributes positional arguments over `PositionalSpec`s by arity.
enum PositionalBinder {
    /// Binds `values` to `specs` left to right: every spec first gets its
    /// minimum (the first spec that cannot is reported as `missing NAME`),
    /// then extra values go, left to right, to `.optional` specs (one each)
    /// and variadic ones (all that remain). Leftovers are reported as
    /// `unexpected argument 'x'`. So `SRC... DEST` binds `a b c` as
    /// SRC = [a, b], DEST = c, and reports `a` alone as `missing DEST`.
    static func bind(
        _ values: [String], to specs: [PositionalSpec], path: [String]
    ) throws(UsageError) -> [String: [String]] {
        var needed = 0
        for spec in specs {
            needed += spec.arity.minimum
            if needed > values.count {
                throw UsageError("missing \(spec.name)", commandPath: path)
            }
        }
        var extra = values.count - needed
        var result: [String: [String]] = [:]
        var remaining = values[...]
        for spec in specs {
            var take = spec.arity.minimum
            switch spec.arity {
            case .one: break
            case .optional: take += min(1, extra)
            case .zeroOrMore, .oneOrMore: take += extra
            }
            extra -= take - spec.arity.minimum
            result[spec.name] = Array(remaining.prefix(take))
            remaining = remaining.dropFirst(take)
        }
        if let unexpected = remaining.first {
            throw UsageError("unexpected argument '\(unexpected)'", commandPath: path)
        }
        return result
    }
}
