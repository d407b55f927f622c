#if canImport(Glibc)
import Glibc
#endif

/// Where an image comes from: an http(s) URL, a local file, or the payload of a `data:` URL.
///
/// An http URL is kept whole, user information included, because it is what libcurl sends; but a
/// password is never shown or stored: `description` (what is printed, recorded and stored as
/// `source`) redacts it (`user:***@`), and `identity(credentials:)` (what the cache key and the
/// stored identity are made of) replaces it with a keyed digest.
public enum Source: Sendable, Hashable, CustomStringConvertible {
    case http(String)
    case file(path: String)
    case data(DataURL)

    /// A data: source holding `bytes`.
    public static func data(mediaType: String, bytes: [UInt8]) -> Source {
        .data(DataURL(mediaType: mediaType, bytes: bytes))
    }

    /// Parses what a user typed: `http://` / `https://` URLs, `file:///abs/path`, a plain path
    /// (made absolute against the current directory), or `data:image/...;base64,...`.
    /// A control character (NUL, newline, escape...) is refused in a URL or a path: a NUL would cut
    /// the path short, the others would be printed raw in messages or mislead whoever reads them.
    public init(parsing text: String, currentDirectory: String? = nil) throws(FetchError) {
        // Only the scheme is lowercased: a data: URL may be megabytes long.
        let lower = String(decoding: text.utf8.prefix(8), as: UTF8.self).lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let scheme = lower.hasPrefix("https") ? "https" : "http"
            guard !Source.hasControlCharacter(text.utf8) else {
                throw .invalidSource("\(Source.shown(text)): a URL may not contain a control character")
            }
            // By byte: a space before a combining mark is one Character with it, and still a raw space.
            guard !text.utf8.contains(0x20) else { throw .invalidSource("\(Source.shown(text)): a URL may not contain a raw space: write it as %20") }
            guard Source.hasValidAuthority(text, scheme: scheme) else { throw .invalidSource(Source.shown(text)) }
            self = .http(Source.normalizeHTTP(text, scheme: scheme))
        } else if lower.hasPrefix("file://") {
            let rest = String(text.dropFirst("file://".count))
            guard rest.hasPrefix("/"), let bytes = Source.percentDecodeBytes(rest),
                  let path = String(validating: bytes, as: UTF8.self) else { throw .invalidSource(Source.shown(text)) }
            guard !Source.hasControlCharacter(bytes) else {
                throw .invalidSource("\(Source.shown(text)): a file path may not contain a control character (%00-%1F, %7F)")
            }
            self = .file(path: Source.normalizePath(path))
        } else if lower.hasPrefix("data:") {
            self = try Source.parseDataURL(text)
        } else if text.isEmpty || (text.firstRange(of: "://") != nil && !text.hasPrefix("/")) {
            throw .invalidSource(Source.shown(text))
        } else {
            guard !Source.hasControlCharacter(text.utf8) else {
                throw .invalidSource("\(Source.shown(text)): a file path may not contain a control character")
            }
            let cwd = currentDirectory ?? Source.currentDirectory()
            let absolute = text.hasPrefix("/") ? text : (cwd.hasSuffix("/") ? cwd : cwd + "/") + text
            self = .file(path: Source.normalizePath(absolute))
        }
    }

    /// The identity, credentials included: for keys that live in memory only (sharing a download,
    /// `--shard`). Never print or store it; `identity(credentials:)` is the one for the cache.
    /// A data: URL is identified by the digest of its bytes, never by its (possibly huge) text.
    var exactIdentity: String {
        switch self {
        case .http(let url): url
        case .file(let path): "file://" + path
        case .data(let payload): "data:\(payload.mediaType);sha256=\(payload.sha256)"
        }
    }

    /// The identity that goes into the cache key and is stored as the entry's `identity`: the same
    /// image, the same identity. A URL's user information is replaced by its keyed digest
    /// (`http://hmac-sha256=HEX@host/...`): different credentials, different keys, and nothing
    /// that reveals them. Sources without credentials never touch `credentials`.
    public func identity(credentials: CredentialDigest) throws(FetchError) -> String {
        guard case .http(let url) = self, let userinfo = Source.userinfoRange(url) else { return exactIdentity }
        let digest = try credentials.hex(.userinfo, String(url[userinfo]))
        return String(url[..<userinfo.lowerBound]) + "hmac-sha256=" + digest + url[userinfo.upperBound...]
    }

    /// `identity(credentials:)` under this process's ephemeral secret: the cache's identity for a
    /// source without credentials; for one with credentials, an identity valid in this process only.
    public var identity: String {
        (try? identity(credentials: .ephemeral)) ?? Source.redacted(exactIdentity)
    }

    /// The URL carries user information (`user:password@`).
    public var hasCredentials: Bool {
        if case .http(let url) = self { return Source.userinfoRange(url) != nil }
        return false
    }

    /// What is shown to users and recorded as `source`: passwords redacted, data: URLs abbreviated.
    public var description: String {
        switch self {
        case .http(let url): Source.redacted(url)
        case .file(let path): path
        case .data(let payload): "data:\(payload.mediaType);base64,... (\(payload.byteCount) bytes)"
        }
    }

    /// The path or URL ends in .jpg / .jpeg (a hint only; the bytes decide).
    public var looksLikeJPEG: Bool {
        let text: String
        switch self {
        case .http(let url): text = String(url.prefix { $0 != "?" && $0 != "#" }).lowercased()
        case .file(let path): text = path.lowercased()
        case .data(let payload): return payload.mediaType == "image/jpeg"
        }
        return text.hasSuffix(".jpg") || text.hasSuffix(".jpeg")
    }

    public var isNetwork: Bool { if case .http = self { return true } else { return false } }

    // MARK: - parsing helpers

    /// Lowercases the scheme and host (they are case-insensitive) and drops a fragment.
    static func normalizeHTTP(_ text: String, scheme: String) -> String {
        if let fast = asciiNormalizeHTTP(text, scheme: scheme) { return fast }
        return normalizeHTTPByCharacter(text, scheme: scheme)
    }

    /// `normalizeHTTP` by `Character`: the reference, and what a URL with non-ASCII text takes.
    static func normalizeHTTPByCharacter(_ text: String, scheme: String) -> String {
        var rest = Substring(text.dropFirst(scheme.count + 3))
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        // Scheme and host are case-insensitive; user information is not.
        var authority = String(rest[..<authorityEnd])
        if let at = authority.lastIndex(of: "@") {
            authority = String(authority[...at]) + authority[authority.index(after: at)...].lowercased()
        } else {
            authority = authority.lowercased()
        }
        var path = String(rest[authorityEnd...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        return scheme + "://" + authority + path
    }

    /// A host is present, made of URL host characters (or a bracketed IPv6 literal), with an optional numeric port.
    static func hasValidAuthority(_ text: String, scheme: String) -> Bool {
        if let fast = asciiHasValidAuthority(text, scheme: scheme) { return fast }
        return hasValidAuthorityByCharacter(text, scheme: scheme)
    }

    /// `hasValidAuthority` by `Character`: the reference, and what a URL with non-ASCII text takes.
    static func hasValidAuthorityByCharacter(_ text: String, scheme: String) -> Bool {
        let rest = text.dropFirst(scheme.count + 3)
        guard !rest.contains(where: { $0 == " " || $0 == "\n" || $0 == "\t" }) else { return false }
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty { guard after.hasPrefix(":"), after.dropFirst().allSatisfy(\.isNumber) else { return false } }
            return host.count > 2
        }
        if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            let port = authority[authority.index(after: colon)...]
            guard port.allSatisfy(\.isNumber), port.count <= 5 else { return false }
        }
        return !host.isEmpty && host.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" || $0 == "%" }
    }

    /// The process's working directory (getcwd), "/" when it cannot be read.
    public static func currentDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "/" }
        defer { free(cwd) }
        return String(cString: cwd)
    }

    static func normalizePath(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    static func parseDataURL(_ text: String) throws(FetchError) -> Source {
        guard let comma = text.utf8.firstIndex(of: UInt8(ascii: ",")) else { throw .invalidSource(shown(text)) }
        let header = text[text.index(text.startIndex, offsetBy: 5)..<comma]
        let params = header.split(separator: ";")
        let mediaType = params.first.map { String($0).lowercased() } ?? ""
        let isBase64 = params.dropFirst().contains { $0.lowercased() == "base64" }
        // Validated and counted here; decoded only when loaded (after the --max-bytes check).
        guard let payload = DataURL(mediaType: mediaType.isEmpty ? "application/octet-stream" : mediaType,
                                    encoded: String(text[text.index(after: comma)...]), base64: isBase64) else {
            throw .invalidSource(isBase64 ? "\(shown(text)): not valid base64" : shown(text))
        }
        return .data(payload)
    }

    /// `%XX` sequences decoded to raw bytes (data: URLs carry any octets); nil when a sequence is malformed.
    static func percentDecodeBytes(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        while let b = bytes.popFirst() {
            if b == UInt8(ascii: "%") {
                guard bytes.count >= 2, let v = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) else { return nil }
                out.append(v)
                bytes = bytes.dropFirst(2)
            } else {
                out.append(b)
            }
        }
        return out
    }

    /// `text` as a message may show it: credentials redacted, control characters escaped, at most 60 characters.
    public static func abbreviated(_ text: String) -> String { shown(text) }

    /// A text refused as a source, for its error message: redacted, printable and abbreviated. It
    /// is not a valid URL, so its user information may hold what ends an authority (`/`, `?`, `#`
    /// in a password): everything between `://` and the last `@` counts as user information.
    static func shown(_ text: String) -> String { abbreviate(printable(redactedLoosely(text))) }

    static func redactedLoosely(_ text: String) -> String {
        guard let scheme = text.firstRange(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else {
            return redacted(text)
        }
        let info = text[scheme.upperBound..<at]
        let shownInfo = info.firstIndex(of: ":").map { info[..<$0] + ":***" } ?? "***"
        return String(text[..<scheme.upperBound]) + shownInfo + text[at...]
    }

    static func abbreviate(_ text: String) -> String {
        guard text.utf8.count > 60 else { return text }
        return String(text.unicodeScalars.prefix(57)) + "..."
    }

    // MARK: - credentials and control characters

    /// The one redaction of user information used by every output: in `scheme://user:password@host...`
    /// the password becomes `***` (`user:***@host`); user information without a password (often a
    /// token) becomes `***` whole. Text without user information is returned as it is.
    public static func redacted(_ text: String) -> String {
        guard let userinfo = userinfoRange(text) else { return text }
        let info = text[userinfo]
        let shown = info.firstIndex(of: ":").map { info[..<$0] + ":***" } ?? "***"
        return String(text[..<userinfo.lowerBound]) + shown + text[userinfo.upperBound...]
    }

    /// `text` with the user information of every `scheme://userinfo@host` in it redacted, wherever
    /// it stands (a message of libcurl's quotes the proxy URL it was given): `user:***@`, or `***@`.
    public static func redactingURLs(in text: String) -> String {
        var bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "@")) else { return text }
        var i = 0
        while i + 3 <= bytes.count {
            guard bytes[i] == UInt8(ascii: ":"), bytes[i + 1] == UInt8(ascii: "/"), bytes[i + 2] == UInt8(ascii: "/") else { i += 1; continue }
            let start = i + 3
            // The authority ends at a path, a blank or a quote; its user information at the last '@'.
            var end = start
            while end < bytes.count, !" \t'\"/)>\n\r".utf8.contains(bytes[end]) { end += 1 }
            if let at = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")) {
                let colon = bytes[start..<at].firstIndex(of: UInt8(ascii: ":"))
                let shown = colon.map { Array(bytes[start..<$0]) + Array(":***".utf8) } ?? Array("***".utf8)
                bytes.replaceSubrange(start..<at, with: shown)
                i = start + shown.count + 1
            } else {
                i = end
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Where the user information of `scheme://userinfo@authority/...` is (without the `@`), if any.
    /// On UTF-8 bytes: `cache ls` redacts every stored source it lists.
    static func userinfoRange(_ text: String) -> Range<String.Index>? {
        let utf8 = text.utf8
        guard utf8.contains(UInt8(ascii: "@")) else { return nil }
        var i = utf8.startIndex
        var start: String.Index?
        while i < utf8.endIndex {   // "://"
            if utf8[i] == UInt8(ascii: ":") {
                let j = utf8.index(after: i)
                if j < utf8.endIndex, utf8[j] == UInt8(ascii: "/") {
                    let k = utf8.index(after: j)
                    if k < utf8.endIndex, utf8[k] == UInt8(ascii: "/") { start = utf8.index(after: k) }
                }
                break  // the scheme ends at the first ':'
            }
            i = utf8.index(after: i)
        }
        guard let start else { return nil }
        var at: String.Index?
        i = start
        while i < utf8.endIndex {
            let c = utf8[i]
            if c == UInt8(ascii: "/") || c == UInt8(ascii: "?") || c == UInt8(ascii: "#") { break }
            if c == UInt8(ascii: "@") { at = i }
            i = utf8.index(after: i)
        }
        guard let at, at > start else { return nil }
        return start..<at
    }

    static func hasControlCharacter<S: Sequence<UInt8>>(_ bytes: S) -> Bool {
        bytes.contains { $0 < 0x20 || $0 == 0x7F }
    }

    /// Control characters shown as `\xHH`, so a message can never move the cursor or end a line.
    /// (C1 controls too: U+009B is a CSI to some terminals.)
    static func printable(_ text: String) -> String {
        func isControl(_ v: UInt32) -> Bool { v < 0x20 || (0x7F...0x9F).contains(v) }
        guard text.unicodeScalars.contains(where: { isControl($0.value) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar.value) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\x" + (hex.count == 1 ? "0" : "") + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
