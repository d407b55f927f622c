/// The cookies of a Netscape/Mozilla cookie file (`-b FILE`, curl's format), read once when a run
/// starts: what libcurl's cookie engine starts with, and what a request's identity includes (a
/// digest of the lines that match its host, `NetworkOptions.keyPart`). The values never leave it
/// but on the wire and in the jar (`-c FILE`).
///
/// A line: `DOMAIN TAILMATCH PATH SECURE EXPIRES NAME VALUE`, tab-separated (`#HttpOnly_` before
/// the domain marks an HttpOnly cookie); `#` comments and blank lines are skipped.
public struct CookieFile: Sendable, Hashable {
    /// Equal and hashed by the digest of its lines: a request's keys hash it for every request of a
    /// run, and a cookie file may hold thousands of lines.
    public static func == (a: CookieFile, b: CookieFile) -> Bool { a.digest == b.digest }
    public func hash(into hasher: inout Hasher) { hasher.combine(digest) }

    public struct Cookie: Sendable, Hashable {
        /// Lower-cased, without a leading dot or the `#HttpOnly_` mark.
        public let domain: String
        /// Also sent to the domain's subdomains (TAILMATCH `TRUE`, or a domain written with a leading dot).
        public let includesSubdomains: Bool
        /// Seconds since the epoch; 0 for a session cookie.
        public let expires: Int64
        /// The line as read (given to libcurl as it is).
        public let line: String
    }

    public let cookies: [Cookie]
    /// SHA-256 (hex) of the cookie lines, in order.
    let digest: String

    /// The largest cookie file read, and the longest line.
    public static let maxBytes = 1 << 20
    public static let maxLineBytes = 8 << 10

    public struct Malformed: Error, Sendable {
        /// 1-based.
        public let line: Int
        public let reason: String
    }

    public init(cookies: [Cookie] = []) {
        self.cookies = cookies
        digest = SHA256.hex(cookies.map(\.line).joined(separator: "\n"))
    }

    /// Parses the file's text. A line that is not a cookie line (7 tab-separated fields, a number
    /// of seconds, no control characters) is refused, naming its number, never its value.
    public init(parsing bytes: [UInt8]) throws(Malformed) {
        var cookies: [Cookie] = []
        var number = 0
        for raw in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            var line = raw[...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.count > CookieFile.maxLineBytes { throw Malformed(line: number, reason: "longer than 8 KiB") }
            var text = String(decoding: line, as: UTF8.self)
            var httpOnly = false
            if text.hasPrefix("#HttpOnly_") {
                httpOnly = true
                text.removeFirst("#HttpOnly_".count)
            }
            if !httpOnly && (text.isEmpty || text.hasPrefix("#") || text.allSatisfy({ $0 == " " || $0 == "\t" })) { continue }
            guard line.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else {
                throw Malformed(line: number, reason: "a control character")
            }
            let fields = text.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 7 else { throw Malformed(line: number, reason: "not 7 tab-separated fields") }
            guard let expires = HeaderNumber.integer(fields[4]) else { throw Malformed(line: number, reason: "the expiry is not a number of seconds") }
            var domain = fields[0].lowercased()
            let dotted = domain.hasPrefix(".")
            while domain.hasPrefix(".") { domain.removeFirst() }
            guard !domain.isEmpty, !fields[5].isEmpty else { throw Malformed(line: number, reason: "no domain or no name") }
            cookies.append(Cookie(domain: domain, includesSubdomains: dotted || fields[1].uppercased() == "TRUE",
                                  expires: expires, line: String(decoding: line, as: UTF8.self)))
        }
        self.init(cookies: cookies)
    }

    /// The lines of the cookies libcurl would send to `source`'s host at `now` (by domain: the
    /// host itself, or a subdomain when the cookie allows it; an expired cookie is not sent), in
    /// file order; empty for another kind of source.
    public func lines(for source: Source, now: Double = FileSystem.now()) -> [String] {
        guard let host = source.host else { return [] }
        return cookies.filter { c in
            (c.expires == 0 || Double(c.expires) > now)
                && (host == c.domain || (c.includesSubdomains && host.hasSuffix("." + c.domain)))
        }.map(\.line)
    }
}

extension Source {
    /// The lower-cased host of an http(s) URL (an IPv6 address without its brackets); nil for other sources.
    var host: String? {
        // `origin` is `scheme://host:port`.
        guard let origin, let scheme = origin.firstIndex(of: ":"), let colon = origin.lastIndex(of: ":"),
              case let start = origin.index(scheme, offsetBy: 3), start <= colon else { return nil }
        var host = origin[start..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return String(host)
    }
}
