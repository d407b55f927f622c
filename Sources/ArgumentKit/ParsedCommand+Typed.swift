/// Typed access to option values. Every accessor returns nil when the option
/// is absent and throws a `UsageError` of the form
/// `invalid value 'abc' for '--retry': expected an integer` when it is malformed.
extension ParsedCommand {
    /// The option's value as an integer, optionally constrained to `range`.
    public func int(_ long: String, range: ClosedRange<Int>? = nil) throws(UsageError) -> Int? {
        try parse(long) { (text: String) throws(UsageError) -> Int in
            guard let number = Int(text) else {
                throw UsageError("expected an integer")
            }
            if let range, !range.contains(number) {
                throw UsageError("expected an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return number
        }
    }

    /// The option's value as a finite number, optionally constrained to `range`.
    public func double(_ long: String, range: ClosedRange<Double>? = nil) throws(UsageError) -> Double? {
        try parse(long) { (text: String) throws(UsageError) -> Double in
            guard let number = Double(text), number.isFinite else {
                throw UsageError("expected a number")
            }
            if let range, !range.contains(number) {
                throw UsageError("expected a number in \(range.lowerBound)...\(range.upperBound)")
            }
            return number
        }
    }

    /// The option's (last) value converted by `convert`, e.g.
    /// `try cmd.parse("max-size", ValueParsers.byteSize)`.
    ///
    /// `convert` throws a `UsageError` whose message is just the reason
    /// (`expected a duration such as 30s`); it is rewrapped to name the
    /// value and the option, and to carry this command's path. Generic over
    /// the thrown type so an unannotated closure (which Swift infers as
    /// throwing `any Error`) works too; a non-`UsageError`'s description
    /// becomes the reason.
    ///
    ///     let n = try cmd.parse("jobs") { text in
    ///         guard let n = Int(text), n <= 64 else { throw UsageError("expected 1...64") }
    ///         return n
    ///     }
    public func parse<T, E: Error>(_ long: String, _ convert: (String) throws(E) -> T) throws(UsageError) -> T? {
        guard let text = value(long) else { return nil }
        return try convertValue(text, long: long, convert)
    }

    /// Every value of the option converted by `convert`, in order.
    public func parseAll<T, E: Error>(_ long: String, _ convert: (String) throws(E) -> T) throws(UsageError) -> [T] {
        var result: [T] = []
        for text in values(long) {
            result.append(try convertValue(text, long: long, convert))
        }
        return result
    }

    private func convertValue<T, E: Error>(
        _ text: String, long: String, _ convert: (String) throws(E) -> T
    ) throws(UsageError) -> T {
        do {
            return try convert(text)
        } catch {
            let reason = (error as? UsageError)?.message ?? "\(error)"
            throw .invalidValue(text, option: "--\(long)", reason: reason, path: path)
        }
    }
}
