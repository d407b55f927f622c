#if canImport(Glibc)
import Glibc
#endif

/// Where an image comes from: an http(s) URL, a local file, or the bytes of a `data:` URL.
public enum Source: Sendable, Hashable, CustomStringConvertible {
    case http(String)
    case file(path: String)
    case data(mediaType: String, bytes: [UInt8])

    /// Parses what a user typed: `http://` / `https://` URLs, `file:///abs/path`, a plain path
    /// (made absolute against the current directory), or `data:image/...;base64,...`.
    public init(parsing text: String, currentDirectory: String? = nil) throws(FetchError) {
        let lower = text.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let scheme = lower.hasPrefix("https") ? "https" : "http"
            guard Source.hasValidAuthority(text, scheme: scheme) else { throw .invalidSource(text) }
            self = .http(Source.normalizeHTTP(text, scheme: scheme))
        } else if lower.hasPrefix("file://") {
            let rest = String(text.dropFirst("file://".count))
            guard rest.hasPrefix("/"), let bytes = Source.percentDecodeBytes(rest),
                  let path = String(validating: bytes, as: UTF8.self) else { throw .invalidSource(text) }
            self = .file(path: Source.normalizePath(path))
        } else if lower.hasPrefix("data:") {
            self = try Source.parseDataURL(text)
        } else if text.isEmpty || (lower.contains("://") && !text.hasPrefix("/")) {
            throw .invalidSource(text)
        } else {
            let cwd = currentDirectory ?? Source.currentDirectory()
            let absolute = text.hasPrefix("/") ? text : (cwd.hasSuffix("/") ? cwd : cwd + "/") + text
            self = .file(path: Source.normalizePath(absolute))
        }
    }

    /// The identity that goes into the cache key: the same image, the same identity.
    /// A data: URL is identified by the digest of its bytes, never by its (possibly huge) text.
    public var identity: String {
        switch self {
        case .http(let url): url
        case .file(let path): "file://" + path
        case .data(let type, let bytes): "data:\(type);sha256=\(SHA256.hex(bytes))"
        }
    }

    /// What is shown to users and recorded as `source` (data: URLs abbreviated).
    public var description: String {
        switch self {
        case .http(let url): url
        case .file(let path): path
        case .data(let type, let bytes): "data:\(type);base64,... (\(bytes.count) bytes)"
        }
    }

    /// The path or URL ends in .jpg / .jpeg (a hint only; the bytes decide).
    public var looksLikeJPEG: Bool {
        let text: String
        switch self {
        case .http(let url): text = String(url.prefix { $0 != "?" && $0 != "#" }).lowercased()
        case .file(let path): text = path.lowercased()
        case .data(let type, _): return type == "image/jpeg"
        }
        return text.hasSuffix(".jpg") || text.hasSuffix(".jpeg")
    }

    public var isNetwork: Bool { if case .http = self { return true } else { return false } }

    // MARK: - parsing helpers

    /// Lowercases the scheme and host (they are case-insensitive) and drops a fragment.
    static func normalizeHTTP(_ text: String, scheme: String) -> String {
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
        guard let comma = text.firstIndex(of: ",") else { throw .invalidSource(abbreviate(text)) }
        let header = text[text.index(text.startIndex, offsetBy: 5)..<comma]
        let payload = text[text.index(after: comma)...]
        let params = header.split(separator: ";")
        let mediaType = params.first.map { String($0).lowercased() } ?? ""
        let isBase64 = params.dropFirst().contains { $0.lowercased() == "base64" }
        let bytes: [UInt8]
        if isBase64 {
            let cleaned = payload.filter { !$0.isWhitespace }
            guard let data = Base64.decode(String(cleaned)) else {
                throw .invalidSource("\(abbreviate(text)): not valid base64")
            }
            bytes = data
        } else {
            guard let decoded = Source.percentDecodeBytes(String(payload)) else { throw .invalidSource(abbreviate(text)) }
            bytes = decoded
        }
        return .data(mediaType: mediaType.isEmpty ? "application/octet-stream" : mediaType, bytes: bytes)
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

    public static func abbreviated(_ text: String) -> String { abbreviate(text) }

    static func abbreviate(_ text: String) -> String {
        text.count <= 60 ? text : String(text.prefix(57)) + "..."
    }
}
