import ArgumentKit
import ImageFetch
#if canImport(Glibc)
import Glibc
#endif

/// Turns the network options of `get` and `prefetch` (`Specs.network`) into one `NetworkOptions`.
/// Bad values are usage errors (exit 2) that never show a credential.
enum NetworkSettings {
    static func parse(_ parsed: ParsedCommand, environment: (String) -> String?) throws(UsageError) -> NetworkOptions {
        var n = NetworkOptions()
        n.headers = try parsed[OptionKeys.header].map { text throws(UsageError) in try header(text, option: "--header") }
        n.userAgent = try parsed[OptionKeys.userAgent].map { v throws(UsageError) in try fieldValue(v, option: "--user-agent") }
        n.referer = try parsed[OptionKeys.referer].map { v throws(UsageError) in try fieldValue(v, option: "--referer") }
        if let v = parsed[OptionKeys.cookie] {
            // curl's rule: a value with '=' is cookies to send, one without is a cookie file.
            if v.contains("=") { n.cookie = try cookie(v, option: "--cookie") } else { n.cookieFile = try cookieFile(v) }
        }
        n.cookieJar = try parsed[OptionKeys.cookieJar].map { v throws(UsageError) in try cookieJar(v) }
        n.user = try parsed[OptionKeys.user].map { v throws(UsageError) in try user(v, option: "--user") }
        if let file = parsed[OptionKeys.netrcFile] {
            n.netrcFile = try readableFile(file, option: "--netrc-file")
        } else if parsed[OptionKeys.netrc] {
            let home = environment("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? "/root"
            n.netrcFile = try readableFile(home + "/.netrc", option: "--netrc")
        }
        let cacert = try parsed[OptionKeys.cacert].map { v throws(UsageError) in try readableFile(v, option: "--cacert") }
        let capath = parsed[OptionKeys.capath]
        if let capath, !FileSystem.isDirectory(capath) {
            throw UsageError("invalid value '\(Source.abbreviated(capath))' for '--capath': not a directory")
        }
        n.tls = TLSOptions.resolve(cacert: cacert, capath: capath, insecure: parsed[OptionKeys.insecure], environment: environment)
        n.proxy = try parsed[OptionKeys.proxy].map { v throws(UsageError) in try fieldValue(v, option: "--proxy") }
        n.noProxy = try parsed[OptionKeys.noproxy].map { v throws(UsageError) in try fieldValue(v, option: "--noproxy") }
        n.resolve = try parsed[OptionKeys.resolve].map { v throws(UsageError) in try resolveEntry(v) }
        n.deniedAddresses = try parsed[OptionKeys.denyAddress].map { v throws(UsageError) in
            guard let range = AddressRange(parsing: v) else {
                throw UsageError("invalid value '\(ListParser.quoted(v, limit: 80, marks: false))' for '--deny-address': expected an IP address or ADDRESS/PREFIX (10.0.0.0/8, fd00::/8)")
            }
            return range
        }
        n.denyPrivateAddresses = parsed[OptionKeys.denyPrivateAddresses]
        n.locationTrusted = parsed[OptionKeys.locationTrusted]
        if !n.deniedRanges.isEmpty {
            // Through a proxy the address connected to is the proxy's: the guard would check nothing.
            func env(_ name: String) -> String? { environment(name).flatMap { $0.isEmpty ? nil : $0 } }
            let proxied = n.proxy.map { !$0.isEmpty } ?? ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"].contains { env($0) != nil }
            let bypassed = (n.noProxy ?? env("no_proxy") ?? env("NO_PROXY"))?.trimmingSpaces() == "*"
            if proxied && !bypassed {
                let option = n.deniedAddresses.isEmpty ? "--deny-private-addresses" : "--deny-address"
                throw UsageError("\(option) checks the address connected to, which through a proxy is the proxy's: give --noproxy '*' or no proxy (-x, http_proxy, https_proxy, all_proxy)")
            }
        }
        if let v = try parsed[OptionKeys.limitRate] {
            guard v > 0 else { throw UsageError("invalid value '0' for '--limit-rate': expected at least 1 byte per second") }
            n.limitRate = v
        }
        n.speedLimit = try parsed[OptionKeys.speedLimit].map(Int64.init)
        n.speedTime = try parsed[OptionKeys.speedTime]
        return n
    }

    /// `--limit-rate-total`: the whole run's bytes per second (every transfer, origin and tier); nil
    /// when not given.
    static func totalRate(_ parsed: ParsedCommand) throws(UsageError) -> Int64? {
        guard let v = try parsed[OptionKeys.limitRateTotal] else { return nil }
        guard v > 0 else { throw UsageError("invalid value '0' for '--limit-rate-total': expected at least 1 byte per second") }
        return v
    }

    /// `HOST:PORT:ADDR[,ADDR]...` as curl's `--resolve` takes it (HOST a name without blanks or
    /// control characters, PORT 1-65535, each ADDR an IP address, IPv6 in brackets or not).
    static func resolveEntry(_ text: String) throws(UsageError) -> String {
        let bad = UsageError("invalid value '\(ListParser.quoted(text, limit: 120, marks: false))' for '--resolve': expected HOST:PORT:ADDR (ADDR an IP address; several comma-separated)")
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].utf8.count <= 253,
              parts[0].utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "[") }),
              parts[1].utf8.allSatisfy({ (48...57).contains($0) }), (1...5).contains(parts[1].count),
              let port = Int(parts[1]), (1...65535).contains(port) else { throw bad }
        let addresses = parts[2].split(separator: ",", omittingEmptySubsequences: false)
        guard !addresses.isEmpty else { throw bad }
        for a in addresses {
            var address = Substring(a)
            if address.hasPrefix("[") && address.hasSuffix("]") { address = address.dropFirst().dropLast() }
            guard !address.contains("/"), AddressRange(parsing: String(address)) != nil else { throw bad }
        }
        return text
    }

    /// The warning `-k` gives, every time it is used (even with --quiet).
    static let insecureWarning = "warning: --insecure: the origin's certificates and host names are not verified (what it serves is never uploaded to a remote cache)"

    /// `Name: value` or `Name:`; a bad one is named without its value when it names an identity header.
    static func header(_ text: String, option: String) throws(UsageError) -> NetworkOptions.Header {
        guard let header = NetworkOptions.Header(parsing: text) else {
            // Only the name is shown: a malformed identity header may hold its secret anywhere.
            let name = String(text.prefix(while: { $0.isASCII && NetworkOptions.Header.isTokenByte($0.asciiValue!) }).prefix(40))
            throw UsageError("invalid value '\(name)...' for '\(option)': expected 'NAME: VALUE' (a token, a colon, a value without control characters), or 'NAME:' to remove a default header")
        }
        return header
    }

    static func fieldValue(_ text: String, option: String) throws(UsageError) -> String {
        guard HTTPHeaders.validValue(text) != nil else {
            throw UsageError("invalid value '\(ListParser.quoted(text, marks: false))' for '\(option)': control characters are not allowed")
        }
        return text
    }

    /// `k=v[; k2=v2]`, never shown in a message. (A value without `=` names a cookie file: `cookieFile`.)
    static func cookie(_ text: String, option: String) throws(UsageError) -> String {
        guard text.contains("="), HTTPHeaders.validValue(text) != nil else {
            throw UsageError("invalid value for '\(option)': expected 'NAME=VALUE[; NAME=VALUE]...' without control characters")
        }
        return text
    }

    /// `-b FILE`: a Netscape cookie file, read now (at most 1 MiB), its values never shown; `-b ''`
    /// turns the cookie engine on with no cookies, as curl's.
    static func cookieFile(_ path: String) throws(UsageError) -> CookieFile {
        if path.isEmpty { return CookieFile() }
        let shown = Source.abbreviated(path)
        let file = try readableFile(path, option: "--cookie")
        let bytes: [UInt8]
        do { bytes = try FileSystem.readRegular(file, maxBytes: CookieFile.maxBytes) } catch {
            let reason = error.errno == EFBIG ? "larger than 1 MiB" : String(cString: strerror(error.errno))
            throw UsageError("invalid value '\(shown)' for '--cookie': cannot read the cookie file (\(reason))")
        }
        do { return try CookieFile(parsing: bytes) } catch {
            throw UsageError("invalid value '\(shown)' for '--cookie': line \(error.line) of the cookie file: \(error.reason) (expected a Netscape cookie file: DOMAIN, TAILMATCH, PATH, SECURE, EXPIRES, NAME, VALUE separated by tabs)")
        }
    }

    /// `-c FILE`: where the jar is written at the end; its directory must exist and it must not be
    /// a directory (found now, not after the run).
    static func cookieJar(_ path: String) throws(UsageError) -> String {
        let shown = Source.abbreviated(path)
        guard !path.isEmpty, !path.hasSuffix("/"), !FileSystem.isDirectory(path) else {
            throw UsageError("invalid value '\(shown)' for '--cookie-jar': expected a file name")
        }
        let directory = path.lastIndex(of: "/").map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
        guard FileSystem.isDirectory(directory) else {
            throw UsageError("invalid value '\(shown)' for '--cookie-jar': no such directory")
        }
        return path
    }

    /// `USER:PASSWORD`, never shown. Nothing is prompted for: a missing password is an error.
    static func user(_ text: String, option: String) throws(UsageError) -> String {
        guard let colon = text.firstIndex(of: ":") else {
            throw UsageError("invalid value for '\(option)': no password given (expected USER:PASSWORD; imgfetch prompts for nothing)")
        }
        guard colon != text.startIndex, HTTPHeaders.validValue(text) != nil else {
            throw UsageError("invalid value for '\(option)': expected USER:PASSWORD with a user name and no control characters")
        }
        return text
    }

    /// `path` when it is a regular file this process can read (never read here: a FIFO or
    /// /dev/zero named by mistake must not hang or fill memory).
    static func readableFile(_ path: String, option: String) throws(UsageError) -> String {
        guard let status = FileSystem.status(path) else {
            throw UsageError("invalid value '\(Source.abbreviated(path))' for '\(option)': no such file")
        }
        guard status.isRegular, access(path, R_OK) == 0 else {
            throw UsageError("invalid value '\(Source.abbreviated(path))' for '\(option)': not a readable regular file")
        }
        return path
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
