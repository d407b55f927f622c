/// HTTP-dates as RFC 9110 §5.6.7 defines them: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and the
/// two obsolete forms a recipient must accept, rfc850-date (`Sunday, 06-Nov-94 08:49:37 GMT`) and
/// asctime-date (`Sun Nov  6 08:49:37 1994`). Anything else is not a date (nil): a zone other than GMT,
/// a missing comma, extra spaces, a one-digit hour, a two-digit year in IMF-fixdate. Names are matched
/// without regard to case (as browsers do).
public enum HTTPDate {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// Epoch seconds of `text`, or nil when it is not an HTTP-date. `now` places rfc850's two-digit
    /// years: one more than 50 years ahead of it is taken in the previous century.
    public static func parse(_ text: String, now: Double? = nil) -> Double? {
        let b = Array(text.utf8)
        guard b.count <= 40 else { return nil }
        if b.count == 29 { return imfFixdate(b) }
        if b.count == 24, b[3] == 32 { return asctime(b) }
        if let comma = b.firstIndex(of: 44), comma >= 6 { return rfc850(b, comma: comma, now: now) }
        return nil
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    static func imfFixdate(_ b: [UInt8]) -> Double? {
        guard name(b[0..<3], in: days) != nil, b[3] == 44, b[4] == 32, b[7] == 32, b[11] == 32, b[16] == 32, b[25] == 32,
              lower(b[26..<29]) == "gmt", let day = number(b[5..<7]), let month = name(b[8..<11], in: months),
              let year = number(b[12..<16]) else { return nil }
        return combine(year: year, month: month, day: day, time: b[17..<25])
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    static func rfc850(_ b: [UInt8], comma: Int, now: Double?) -> Double? {
        let r = b[(comma + 1)...]
        guard name(b[0..<comma], in: longDays) != nil, r.count == 23 else { return nil }
        let s = r.startIndex
        guard b[s] == 32, b[s + 3] == 45, b[s + 7] == 45, b[s + 10] == 32, b[s + 19] == 32, lower(b[(s + 20)..<(s + 23)]) == "gmt",
              let day = number(b[(s + 1)..<(s + 3)]), let month = name(b[(s + 4)..<(s + 7)], in: months),
              let yy = number(b[(s + 8)..<(s + 10)]) else { return nil }
        // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
        let thisYear = civil(now ?? FileSystem.now()).year
        var year = thisYear / 100 * 100 + yy
        if year > thisYear + 50 { year -= 100 }
        return combine(year: year, month: month, day: day, time: b[(s + 11)..<(s + 19)])
    }

    /// `Sun Nov  6 08:49:37 1994`
    static func asctime(_ b: [UInt8]) -> Double? {
        guard name(b[0..<3], in: days) != nil, b[7] == 32, b[10] == 32, b[19] == 32,
              let month = name(b[4..<7], in: months), let year = number(b[20..<24]) else { return nil }
        let day: Int?
        if b[8] == 32 { day = number(b[9..<10]) } else { day = number(b[8..<10]) }
        guard let day else { return nil }
        return combine(year: year, month: month, day: day, time: b[11..<19])
    }

    /// `HH:MM:SS` with the date; nil when out of range.
    static func combine(year: Int, month: Int, day: Int, time t: ArraySlice<UInt8>) -> Double? {
        let s = t.startIndex
        guard t.count == 8, t[s + 2] == 58, t[s + 5] == 58, let h = number(t[s..<(s + 2)]),
              let m = number(t[(s + 3)..<(s + 5)]), let sec = number(t[(s + 6)..<(s + 8)]),
              h <= 23, m <= 59, sec <= 60, (1...31).contains(day), (1...9999).contains(year) else { return nil }
        return epochSeconds(year: year, month: month, day: day) + Double(h * 3600 + m * 60 + sec)
    }

    /// Digits only (no sign, no spaces).
    static func number(_ b: ArraySlice<UInt8>) -> Int? {
        guard !b.isEmpty, b.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return b.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    static func lower(_ b: ArraySlice<UInt8>) -> String {
        String(decoding: b.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// The 1-based index of `b` in `names` (case-insensitive).
    static func name(_ b: ArraySlice<UInt8>, in names: [String]) -> Int? {
        names.firstIndex(of: lower(b)).map { $0 + 1 }
    }

    /// ISO 8601 UTC, e.g. 2026-11-29T16:30:00Z.
    public static func iso8601(_ epoch: Double) -> String {
        let c = civil(epoch)
        return "\(c.year)-\(two(c.month))-\(two(c.day))T\(two(c.hour)):\(two(c.minute)):\(two(c.second))Z"
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    public static func format(_ epoch: Double) -> String {
        let c = civil(epoch)
        let clamped = epoch.isFinite ? min(max(epoch, 0), 253_402_300_799) : 0
        let days = Int(clamped.rounded(.down)).quotientAndRemainder(dividingBy: 86_400)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][(((days.remainder < 0 ? days.quotient - 1 : days.quotient) % 7) + 7) % 7]
        return "\(weekday), \(two(c.day)) \(months[c.month - 1].capitalized) \(c.year) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) GMT"
    }

    /// The UTC calendar date and time of an epoch (Howard Hinnant's civil_from_days).
    public static func civil(_ epoch: Double) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        // Clamped to years 1970...9999 so that no stored value (an entry's expiry) can trap here.
        let secs = Int(epoch.isFinite ? min(max(epoch, 0), 253_402_300_799).rounded(.down) : 0)
        var days = secs / 86_400
        var rem = secs - days * 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let doe = days - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return (y, m, d, rem / 3600, rem % 3600 / 60, rem % 60)
    }

    static func epochSeconds(year: Int, month: Int, day: Int) -> Double {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return Double(era * 146_097 + doe - 719_468) * 86_400
    }
}
