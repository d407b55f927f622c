/// Redirects, followed by the pipeline one hop at a time (libcurl never follows them): every hop is
/// a response of its own. A redirect is stored under its own key (`EntryKeys.response`, format
/// `redirect`, its bytes the target URL) and reused only while its own rules keep it fresh: a 301 or
/// 308 may get the heuristic lifetime, a 302, 303 or 307 is stored only with explicit freshness. The
/// image behind it keeps its own entry under the target's key. Only http(s) targets are followed.
extension ImagePipeline {
    /// What one hop gave: an image, or a redirect to follow.
    enum Hop {
        case image(ImageResult)
        case redirect(Source)
    }

    /// The target of a stored redirect of `source` (under `keys.response`), when it may be used
    /// now (fresh, or offline).
    func storedRedirect(of source: Source, keys: RequestPlan.EntryKeys, now: Double, offline: Bool) -> Source? {
        guard source.isNetwork, let stored = cache.lookup(keys.response),
              stored.entry.format == CacheEntry.redirectFormat,
              offline || stored.entry.isFresh(at: now),
              let target = String(validating: stored.bytes, as: UTF8.self) else { return nil }
        return try? Source.redirectTarget(target, from: source)
    }

    /// The next hop of a redirect response, after storing the redirect when its rules allow.
    func followRedirect(from source: Source, keys: RequestPlan.EntryKeys, to location: String, response: LoadResponse,
                        options: FetchOptions) throws(FetchError) -> Source {
        let target = try Source.redirectTarget(location, from: source)
        let now = FileSystem.now()
        let stored = StoredResponse(status: response.status, requestTime: response.requestTime > 0 ? response.requestTime : now,
                                    responseTime: response.responseTime > 0 ? response.responseTime : now,
                                    defaultTTL: options.defaultTTL, headers: response.headers)
        let freshness = stored.freshness
        // A redirect is stored only when its rules allow and neither end carries credentials (a stored
        // target would write them down).
        if freshness.storable && !freshness.mustRevalidate && (freshness.expires ?? 0) > now,
           !source.hasCredentials, !target.hasCredentials {
            let bytes = Array(target.description.utf8)
            var entry = CacheEntry(key: keys.response.rawValue, identity: keys.identity, source: source.description,
                                   variant: CacheEntry.redirectFormat, format: CacheEntry.redirectFormat, width: 0, height: 0,
                                   bytes: Int64(bytes.count), checksum: "", created: now, expires: freshness.expires)
            entry.response = stored
            _ = try? cache.store(bytes, entry: entry)   // a redirect that cannot be stored is still followed
        }
        return target
    }
}

extension CacheEntry {
    /// The format (and variant) of a stored redirect.
    public static let redirectFormat = "redirect"

    /// The format (and variant) of a stored error response.
    public static let statusFormat = "status"

    public var isRedirect: Bool { format == CacheEntry.redirectFormat }
    /// An image, not a stored redirect or error response.
    public var holdsImage: Bool { format != CacheEntry.redirectFormat && format != CacheEntry.statusFormat }
}

extension Source {
    /// `location` (absolute, or relative to `base`, RFC 3986 §5.2) as an http(s) source; any other
    /// scheme is refused.
    static func redirectTarget(_ location: String, from base: Source) throws(FetchError) -> Source {
        guard case .http(let baseURL) = base else { throw .redirectRefused("redirect from a source that is not http(s)") }
        let text = location.trimmed()
        guard !text.isEmpty, text.utf8.count <= 8192,
              !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7f }) else {
            throw .redirectRefused("redirect to an invalid location")
        }
        let absolute = resolve(text, against: baseURL)
        let lower = absolute.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw .redirectRefused("redirect to a scheme other than http/https refused (\(Source.abbreviate(text)))")
        }
        do { return try Source(parsing: absolute) } catch { throw .redirectRefused("redirect to an invalid location (\(Source.abbreviate(text)))") }
    }

    /// Reference resolution for the forms servers send: absolute, scheme-relative (`//host/p`),
    /// absolute path (`/p`), query (`?q`) and relative path (`a/b`, with `.` and `..` removed).
    static func resolve(_ reference: String, against base: String) -> String {
        if let colon = reference.firstIndex(of: ":"),
           reference[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }),
           reference.first?.isLetter == true { return reference }
        let scheme = String(base.prefix { $0 != ":" })
        if reference.hasPrefix("//") { return scheme + ":" + reference }
        let afterScheme = base.dropFirst(scheme.count + 3)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let origin = scheme + "://" + authority
        var basePath = String(afterScheme.dropFirst(authority.count).prefix { $0 != "?" && $0 != "#" })
        if basePath.isEmpty { basePath = "/" }
        if reference.hasPrefix("?") { return origin + basePath + reference }
        if reference.hasPrefix("#") { return base }
        let merged = reference.hasPrefix("/") ? reference
            : String(basePath[...(basePath.lastIndex(of: "/") ?? basePath.startIndex)]) + reference
        let pathEnd = merged.firstIndex { $0 == "?" || $0 == "#" } ?? merged.endIndex
        var segments: [Substring] = []
        let parts = merged[..<pathEnd].split(separator: "/", omittingEmptySubsequences: false)
        for (i, part) in parts.enumerated() {
            if part == "." { if i == parts.count - 1 { segments.append("") }; continue }
            if part == ".." {
                if segments.count > 1 { segments.removeLast() }
                if i == parts.count - 1 { segments.append("") }
                continue
            }
            segments.append(part)
        }
        return origin + segments.joined(separator: "/") + merged[pathEnd...]
    }
}
