/// The one parser of a number that others wrote: every number read from a response header
/// (`Content-Range`, `Content-Length`, `Retry-After`, `Age`, the `Cache-Control` delta-seconds) and a
/// cookie line's expiry goes through it.
///
/// A number is ASCII digits only: no sign, no `+`, no white space inside, no fraction, no exponent,
/// no other script's digits. Leading zeros are allowed. It is bounded before it is computed, so no
/// value, however long, can overflow: `integer` refuses a value above its limit (at most 10^18 - 1,
/// which leaves room for `+ 1`, `- 1` and the sum of two), `deltaSeconds` holds one at 2^31.
enum HeaderNumber {
    /// The largest integer ever read: 18 digits.
    static let maxInteger: Int64 = 999_999_999_999_999_999

    /// A non-negative integer of at most `limit` (capped at `maxInteger`); nil for anything else.
    static func integer<S: StringProtocol>(_ text: S, max limit: Int64 = maxInteger) -> Int64? {
        guard let value = digits(text.utf8) else { return nil }
        return value <= min(limit, maxInteger) ? value : nil
    }

    /// delta-seconds (RFC 9111 §1.2.2): digits only; a value above 2^31 is 2^31 ("a very long time").
    static func deltaSeconds<S: StringProtocol>(_ text: S) -> Double? {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.allSatisfy(isDigit) else { return nil }
        guard let value = digits(utf8) else { return 2_147_483_648 }   // more than 18 significant digits
        return Double(min(value, 2_147_483_648))
    }

    /// The value of an all-digit text of at most 18 significant digits; nil otherwise (empty, a
    /// non-digit, longer).
    private static func digits<C: Collection>(_ utf8: C) -> Int64? where C.Element == UInt8 {
        guard !utf8.isEmpty else { return nil }
        var value: Int64 = 0
        var significant = 0
        for byte in utf8 {
            guard isDigit(byte) else { return nil }
            if value == 0 && byte == 0x30 { continue }
            significant += 1
            guard significant <= 18 else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        return value
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
