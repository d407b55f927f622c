/// HTTP caching rules (RFC 9111, the parts a private image cache needs): how long a response stays
/// fresh, whether it may be stored, and whether it must be revalidated each time.
public struct Freshness: Sendable, Equatable {
    /// `no-store`: do not cache at all.
    public var storable: Bool
    /// `no-cache` (or `max-age=0` with validators): revalidate before every use.
    public var mustRevalidate: Bool
    /// Seconds since the epoch when the response stops being fresh; nil = no expiry set (use the TTL).
    public var expires: Double?

    /// RFC 9111 delta-seconds: digits only, capped at 2^31 (a larger value means "a very long time");
    /// an invalid value (negative, "inf", "1e9") makes the response stale (0), as RFC 9111 4.2.1 asks.
    static func deltaSeconds(_ text: String) -> Double? {
        if text.isEmpty { return nil }
        guard text.utf8.allSatisfy({ (48...57).contains($0) }) else { return 0 }
        return text.count > 10 ? 2_147_483_648 : min(Double(text) ?? 2_147_483_648, 2_147_483_648)
    }

    /// Reads `Cache-Control` (max-age, s-maxage, no-store, no-cache) and `Expires` (with `Date`),
    /// falling back to `defaultTTL` when the server says nothing.
    public static func from(headers: HTTPHeaders, now: Double, defaultTTL: Double) -> Freshness {
        var result = Freshness(storable: true, mustRevalidate: false, expires: nil)
        var maxAge: Double?
        if let cc = headers["cache-control"] {
            for directive in cc.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                guard let first = parts.first else { continue }  // "=" alone
                let name = first.trimmed().lowercased()
                let value = parts.count > 1 ? parts[1].trimmed().trimmingQuotes() : nil
                switch name {
                case "no-store": result.storable = false
                case "no-cache": result.mustRevalidate = true
                case "max-age": if maxAge == nil, let v = value.flatMap(Freshness.deltaSeconds) { maxAge = v }
                case "s-maxage": if let v = value.flatMap(Freshness.deltaSeconds) { maxAge = v }
                default: break
                }
            }
        }
        if let maxAge {
            result.expires = now + max(0, maxAge)
        } else if let expiresText = headers["expires"] {
            // An invalid Expires (e.g. "0") means already expired.
            let expires = HTTPDate.parse(expiresText) ?? 0
            let serverNow = headers["date"].flatMap(HTTPDate.parse) ?? now
            result.expires = now + min(expires - serverNow, 2_147_483_648)
        } else {
            result.expires = now + defaultTTL
        }
        return result
    }
}

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two obsolete forms, to epoch seconds.
public enum HTTPDate {
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    public static func parse(_ text: String) -> Double? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map(String.init)
        var day: Int?, month: Int?, year: Int?, time: [Int]?
        for token in tokens {
            if token.contains(":") {
                let t = token.split(separator: ":").compactMap { $0.count <= 2 ? Int($0) : nil }
                if t.count == 3, t[0] <= 23, t[1] <= 59, t[2] <= 60 { time = t }
            } else if token.count <= 4, let n = Int(token) {
                if day == nil && n <= 31 && token.count <= 2 { day = n } else { year = n < 100 ? (n < 70 ? 2000 + n : 1900 + n) : n }
            } else if month == nil, let m = months.firstIndex(of: String(token.lowercased().prefix(3))) {
                month = m + 1
            }
        }
        guard let day, let month, let year, let time, (1...31).contains(day), (1...9999).contains(year) else { return nil }
        return epochSeconds(year: year, month: month, day: day) + Double(time[0] * 3600 + time[1] * 60 + time[2])
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

extension StringProtocol {
    func trimmed() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }

    func trimmingQuotes() -> String {
        var s = Substring(self)
        if s.hasPrefix("\""), s.hasSuffix("\""), s.count >= 2 { s = s.dropFirst().dropLast() }
        return String(s)
    }
}

extension String {
    var capitalized: String { prefix(1).uppercased() + dropFirst() }
}
