// libFuzzer entry point for the ImageFetch parsers (scripts/fuzz.sh compiles it into one module with
// ImageFetch's sources, so the library needs no extra API). FUZZ_TARGET picks the parser:
//   list     prefetch list lines (ListParser.parse)
//   source   what a user or a list gives as a SOURCE (Source(parsing:)) and its cache key
//   headers  response headers: Cache-Control/Expires/Date (Freshness), Retry-After, HTTP dates, RFC 9530 digests
//   meta     a cache entry's .meta file (CacheEntry.decode), which anyone with write access may plant
//   listing  a remote store's listing: an HTTP JSON directory listing and S3's ListObjectsV2 / error XML
//   direct   a whole HTTP/1.x response read to the end of its connection (DirectHTTPResponse.parse)
//   numbers  every number a response header or a cookie line gives (HeaderNumber): Content-Range,
//            Content-Length, Retry-After, Age, the Cache-Control delta-seconds, a cookie's expiry
// A crash, a Swift runtime trap (overflow, bounds) or an ASan report is a finding; so is a broken
// invariant checked below (fatalError).
#if canImport(Glibc)
import Glibc
#endif

let fuzzTarget: String = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? ""

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    switch fuzzTarget {
    case "list": FuzzTargets.list(bytes)
    case "source": FuzzTargets.source(bytes)
    case "headers": FuzzTargets.headers(bytes)
    case "meta": FuzzTargets.meta(bytes)
    case "listing": FuzzTargets.listing(bytes)
    case "direct": FuzzTargets.direct(bytes)
    case "numbers": FuzzTargets.numbers(bytes)
    default:
        fatalError("FUZZ_TARGET must be list, source, headers, meta, listing, direct or numbers (got '\(fuzzTarget)')")
    }
    return 0
}

enum FuzzTargets {
    static let cwd = "/fuzz/cwd"

    static func list(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            // The byte-wise split (ASCII without a LF) gives the Character split's fields.
            if let fast = ListParser.asciiFieldsOf(line) {
                let slow = ListParser.fieldsByCharacter(line)
                let agree = switch (fast, slow) {
                case (.success(let a), .success(let b)): a == b && a.map(\.startIndex) == b.map(\.startIndex)
                case (.failure(let a), .failure(let b)): a.message == b.message
                default: false
                }
                if !agree { fatalError("the byte and Character splits differ: \(line.debugDescription)") }
            }
            switch ListParser.parse(line, line: i + 1, currentDirectory: cwd) {
            case .item(let item):
                for s in [item.source] + item.alternatives + (item.lowDataSource.map { [$0] } ?? []) { check(s) }
            case .skip, .malformed: break
            }
        }
    }

    static func source(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        // The byte-wise http(s) checks (for ASCII text without a CR) give what the Character ones give.
        for scheme in ["http", "https"] {
            if let fast = Source.asciiHasValidAuthority(text, scheme: scheme), fast != Source.hasValidAuthorityByCharacter(text, scheme: scheme) {
                fatalError("the byte and Character authority checks differ: \(text.debugDescription)")
            }
            if let fast = Source.asciiNormalizeHTTP(text, scheme: scheme), fast != Source.normalizeHTTPByCharacter(text, scheme: scheme) {
                fatalError("the byte and Character normal forms differ: \(text.debugDescription)")
            }
        }
        guard let s = try? Source(parsing: text, currentDirectory: cwd) else { return }
        check(s)
    }

    /// What every parsed source must satisfy: a file source is an absolute path without `.` or `..`
    /// components (a list must never name a path it did not spell out), and re-parsing what is shown
    /// for an http(s) source gives the same source.
    static func check(_ s: Source) {
        _ = CacheKey(source: s, processing: .original).rawValue
        _ = Source.abbreviated(s.description)
        _ = s.looksLikeJPEG
        switch s {
        case .file(let path):
            guard path.hasPrefix("/") else { fatalError("relative file source: \(path)") }
            if path.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) {
                fatalError("file source with a dot component: \(path)")
            }
        case .http(let url):
            guard let again = try? Source(parsing: url, currentDirectory: cwd), again == s else {
                fatalError("http source does not re-parse to itself: \(url)")
            }
        case .data: break
        }
    }

    static func headers(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let headers = HTTPHeaders(parsing: text)
        for now in [0.0, 1_764_000_000, 253_402_300_799] {
            let f = Freshness.from(headers: headers, now: now, defaultTTL: 604_800)
            if let e = f.expires, e.isNaN { fatalError("NaN expiry from \(text.debugDescription)") }
            // Every status, and a response that took time to arrive (Age, Date, response delay).
            for status in [200, 203, 301, 302, 404, 410, 503] {
                let g = Freshness.evaluate(status: status, headers: headers, requestTime: now - 3, responseTime: now,
                                           defaultTTL: 604_800)
                if let e = g.expires, e.isNaN { fatalError("NaN expiry (status \(status)) from \(text.debugDescription)") }
            }
        }
        let cc = CacheControl(headers: headers)
        for name in ["max-age", "s-maxage", "stale-while-revalidate", "stale-if-error"] {
            if let v = cc.seconds(name), !(v >= 0 && v.isFinite) { fatalError("\(name) gave \(v) from \(text.debugDescription)") }
        }
        for (_, value) in headers.all {
            if let d = HTTPDate.parse(value) {
                guard d.isFinite else { fatalError("infinite date from \(value.debugDescription)") }
                _ = HTTPDate.format(d)
                _ = HTTPDate.iso8601(d)
            }
            if let wait = HTTPLoader.retryAfter(value), !(wait >= 0 && wait.isFinite) {
                fatalError("Retry-After \(value.debugDescription) gave \(wait)")
            }
            if let v = CacheControl.deltaSeconds(value), !(v >= 0 && v.isFinite) { fatalError("delta-seconds \(value.debugDescription) gave \(v)") }
            // RFC 9530 digests (RFC 9651 dictionaries): what a field keeps reads back the same.
            if let d = HTTPDigests(field: value), HTTPDigests(field: d.field) != d {
                fatalError("digest field \(value.debugDescription) did not round-trip as \(d.field)")
            }
        }
        // The resume's rules on any headers: a 200 that ended early keeps only a strong validator.
        if let kept = HTTPLoader.keepable([1], headers: headers), kept.isStrong, kept.validator.hasPrefix("W/") {
            fatalError("a weak ETag kept from \(text.debugDescription)")
        }
    }

    /// A decoded entry encodes to bytes that decode to the same entry, and using it does not trap.
    static func meta(_ bytes: [UInt8]) {
        guard let entry = CacheEntry.decode(bytes) else { return }
        _ = entry.isFresh(at: 1_764_000_000)
        _ = entry.isExpired(at: 1_764_000_000)
        _ = HTTPDate.iso8601(entry.created)
        if let e = entry.expires { _ = HTTPDate.iso8601(e) }
        guard let again = CacheEntry.decode(entry.encoded()) else { fatalError("an entry's encoding does not decode") }
        if again != entry && !(entry.created.isNaN || entry.expires?.isNaN == true) {
            fatalError("round trip changed the entry: \(entry) -> \(again)")
        }
    }

    /// Only cache object names come out of a listing, whatever it holds; a token never has a
    /// control byte.
    static func listing(_ bytes: [UInt8]) {
        for name in JSONListParser.names(bytes) where !HTTPRemoteStore.isCacheObjectName(name.utf8) {
            fatalError("JSON listing let through \(name)")
        }
        let page = S3ListParser.parse(bytes, prefix: "p/")
        for name in page.names where !HTTPRemoteStore.isCacheObjectName(name.utf8) {
            fatalError("S3 listing let through \(name)")
        }
        if let token = page.continuation, token.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            fatalError("continuation token with a control byte")
        }
        if let code = S3ListParser.errorCode(bytes), code.isEmpty || code.utf8.count > 64 { fatalError("error code \(code)") }
    }

    /// A direct response keeps its bounds whatever the server sent: a body of at most the limit
    /// (and never more than was received), a final status, header fields a request could carry.
    static func direct(_ bytes: [UInt8]) {
        let max = 1 << 16
        guard let r = try? DirectHTTPResponse.parse(bytes, maxBodyBytes: max) else { return }
        if r.body.count > max || r.body.count > bytes.count {
            fatalError("a body of \(r.body.count) bytes from \(bytes.count)")
        }
        if !(200...599).contains(r.status) { fatalError("final status \(r.status)") }
        if (r.status == 204 || r.status == 304) && !r.body.isEmpty { fatalError("a body with status \(r.status)") }
        for (name, value) in r.headers.all
        where name.isEmpty || HTTPHeaders.validValue(name) == nil || HTTPHeaders.validValue(value) == nil {
            fatalError("header field \(name.debugDescription): \(value.debugDescription)")
        }
    }

    /// Each line is given to every number parser: a value is never negative nor above its bound, a
    /// range is one a resume can use, a parsed integer prints back as its digits.
    static func numbers(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(64) {
            let value = String(line)
            if let n = HeaderNumber.integer(value) {
                guard n >= 0, n <= HeaderNumber.maxInteger else { fatalError("integer \(n) from \(value.debugDescription)") }
                let digits = value.drop { $0 == "0" }
                guard String(n) == (digits.isEmpty ? "0" : String(digits)) else { fatalError("\(value.debugDescription) read as \(n)") }
            }
            if let d = HeaderNumber.deltaSeconds(value), !(d >= 0 && d <= 2_147_483_648) { fatalError("delta \(d)") }
            for candidate in [value, "bytes " + value] {
                guard let range = ContentRange(candidate) else { continue }
                if range.start < 0 || range.total.map({ $0 <= range.start }) == true {
                    fatalError("Content-Range \(candidate.debugDescription) gave \(range)")
                }
            }
            let headers = HTTPHeaders([("Age", value), ("Retry-After", value), ("Cache-Control", "max-age=" + value)])
            if let age = Freshness.ageValue(headers), !(age >= 0 && age.isFinite) { fatalError("Age \(age)") }
            if let wait = HTTPLoader.retryAfter(value), !(wait >= 0 && wait.isFinite) { fatalError("Retry-After \(wait)") }
        }
        if let jar = try? CookieFile(parsing: bytes) {
            for cookie in jar.cookies where cookie.expires < 0 { fatalError("cookie expiry \(cookie.expires)") }
            _ = jar.lines(for: .http("http://example.com/a"), now: 1_764_000_000)
        }
    }
}
