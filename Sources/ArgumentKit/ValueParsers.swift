/// Ready-made value converters for `ParsedCommand.parse(_:_:)`.
///
/// Each throws a `UsageError` whose message is only the reason
/// (e.g. `expected a duration such as 30s, 15m, 12h or 7d`); `parse`
/// turns it into `invalid value '5y' for '--max-age': expected ...`.
public enum ValueParsers {
    /// A byte count: a plain number, or a number with a `K`, `M`, `G` or `T`
    /// suffix (powers of 1024), optionally followed by `B` or `iB`;
    /// case-insensitive. Decimals are allowed and rounded down
    /// (`1.5K` = 1536). `10M` = 10485760, `512` = `512b` = 512.
    /// Rejects negatives, whitespace, unknown suffixes and overflow.
    public static func byteSize(_ text: String) throws(UsageError) -> Int64 {
        let reason = UsageError("expected a byte size such as 512K, 10M or 1G")
        var digits = Substring(text.uppercased())
        if digits.hasSuffix("B") { digits.removeLast() }
        var multiplier: Int64 = 1
        let units: [Character] = ["K", "M", "G", "T"]
        if digits.hasSuffix("I"), digits.count >= 2, units.contains(digits[digits.index(before: digits.index(before: digits.endIndex))]) {
            digits.removeLast()
        }
        if let last = digits.last, let power = units.firstIndex(of: last) {
            multiplier = Int64(1) << (10 * (power + 1))
            digits.removeLast()
        }
        guard isUnsignedDecimal(digits) else { throw reason }
        if let whole = Int64(digits) {
            let (product, overflow) = whole.multipliedReportingOverflow(by: multiplier)
            guard !overflow else { throw reason }
            return product
        }
        guard let fractional = Double(digits) else { throw reason }
        let bytes = fractional * Double(multiplier)
        guard bytes < 9.2e18 else { throw reason }
        return Int64(bytes)  // truncates toward zero = rounds down (bytes >= 0); avoids libm
    }

    /// A duration in seconds: a number with an optional `s`, `m`, `h` or `d`
    /// suffix (case-insensitive); a plain number means seconds. Decimals are
    /// allowed (`1.5h` = 5400). Rejects negatives and other suffixes (`5y`).
    public static func duration(_ text: String) throws(UsageError) -> Double {
        let reason = UsageError("expected a duration such as 30s, 15m, 12h or 7d")
        var digits = Substring(text.lowercased())
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        var multiplier = 1.0
        if let last = digits.last, let unit = units[last] {
            multiplier = unit
            digits.removeLast()
        }
        guard isUnsignedDecimal(digits), let number = Double(digits) else { throw reason }
        let seconds = number * multiplier
        guard seconds.isFinite else { throw reason }
        return seconds
    }

    /// An integer >= 1.
    public static func positiveInt(_ text: String) throws(UsageError) -> Int {
        guard isUnsignedDecimal(Substring(text)), !text.contains("."), let number = Int(text), number >= 1 else {
            throw UsageError("expected a positive integer")
        }
        return number
    }

    /// A shard selector `K/N` with `1 <= K <= N`, e.g. `2/5`.
    public static func fraction(_ text: String) throws(UsageError) -> (k: Int, n: Int) {
        let reason = UsageError("expected K/N with 1 <= K <= N, such as 2/5")
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2,
            !parts[0].contains("."), !parts[1].contains("."),
            isUnsignedDecimal(parts[0]), isUnsignedDecimal(parts[1]),
            let k = Int(parts[0]), let n = Int(parts[1]),
            k >= 1, k <= n
        else { throw reason }
        return (k, n)
    }

    /// A converter accepting exactly one of `choices` (case-sensitive),
    /// e.g. `try cmd.parse("format", ValueParsers.oneOf(["png", "jpeg"]))`.
    public static func oneOf(_ choices: [String]) -> @Sendable (String) throws(UsageError) -> String {
        { (text: String) throws(UsageError) -> String in
            guard choices.contains(text) else {
                throw UsageError("expected one of: \(choices.joined(separator: ", "))")
            }
            return text
        }
    }

    /// ASCII digits with at most one `.` and at least one digit.
    static func isUnsignedDecimal(_ text: Substring) -> Bool {
        var sawDigit = false, sawDot = false
        for character in text {
            if character == "." {
                if sawDot { return false }
                sawDot = true
            } else if character.isASCII, character.isNumber {
                sawDigit = true
            } else {
                return false
            }
        }
        return sawDigit
    }
}
