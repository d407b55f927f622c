// HTTPRemoteStore's listing: an HTTP server's JSON directory listing (nginx `autoindex on;
// autoindex_format json;`, streamed: HTTPRemoteStore+JSONListing.swift), or S3's ListObjectsV2,
// page by page. Both bodies are hostile: bounded, scanned without a general parser, and only names
// of the form `<64 hex>.<ext>` are kept.

extension HTTPRemoteStore {
    public func list(continuation: String?) async throws(RemoteStoreError) -> RemoteListing {
        switch location {
        case .http(let base):
            // The whole directory is one page, streamed (see jsonListing).
            guard continuation == nil else { return RemoteListing(names: []) }
            return RemoteListing(names: try await jsonListing(base))
        case .s3(let bucketURL, _, let prefix, _):
            var query: [(String, String)] = []
            if let continuation {
                guard (1...4096).contains(continuation.utf8.count) else {
                    throw RemoteStoreError("remote cache \(description): listing: refused continuation token")
                }
                query.append(("continuation-token", continuation))
            }
            query.append(("list-type", "2"))
            if !prefix.isEmpty { query.append(("prefix", prefix)) }
            // Sorted by name and encoded as SigV4's canonical query string wants it, but for `/`:
            // libcurl 7.88 signs `%2F` so that S3 (and moto) compute another signature; a raw `/`
            // (valid in a query) is signed as S3 expects.
            if let pageSize = listPageSize { query.append(("max-keys", String(pageSize))) }
            query.sort { $0.0 < $1.0 }
            let q = query.map { "\($0.0)=\(S3ListParser.uriEncode($0.1, keepSlash: true))" }.joined(separator: "&")
            let url = bucketURL + "?" + q
            let result = try await send(.get, url: url, what: "listing", maxBytes: HTTPRemoteStore.maxListingBytes)
            try check(result, what: "listing")
            let page = S3ListParser.parse(result.body, prefix: prefix)
            // Passed on as sent, a token equal to this one included: the caller (RemoteSync.pull)
            // decides when a listing goes round in circles, and says so.
            return RemoteListing(names: page.names, continuation: page.continuation)
        }
    }

    /// `<64 lowercase hex digits>.<ext>` with `ext` 1 to 8 of `[a-z0-9]`: the names the remote cache
    /// makes (`<key>.meta`, `<key>.jpg`, ...). Every other listed name is ignored.
    public static func isCacheObjectName<S: Collection>(_ name: S) -> Bool where S.Element == UInt8 {
        guard (66...73).contains(name.count) else { return false }
        var index = 0
        for b in name {
            if index < 64 {
                guard (48...57).contains(b) || (97...102).contains(b) else { return false }
            } else if index == 64 {
                guard b == UInt8(ascii: ".") else { return false }
            } else {
                guard (48...57).contains(b) || (97...122).contains(b) else { return false }
            }
            index += 1
        }
        return true
    }
}

/// Reads S3's XML answers: ListObjectsV2 pages (`<Key>`, `<IsTruncated>`, `<NextContinuationToken>`)
/// and error bodies (`<Code>`), by scanning for those elements only.
enum S3ListParser {
    struct Page {
        var names: [String]
        var continuation: String?
    }

    static func parse(_ body: [UInt8], prefix: String) -> Page {
        let p = Array(prefix.utf8)
        var names: [String] = []
        for value in elements("Key", in: body, maxLength: 1024) where value.count > p.count && value.starts(with: p) {
            let name = value[(value.startIndex + p.count)...]
            if HTTPRemoteStore.isCacheObjectName(name) { names.append(String(decoding: name, as: UTF8.self)) }
        }
        let truncated = elements("IsTruncated", in: body, maxLength: 8).first.map { $0.elementsEqual("true".utf8) } ?? false
        var token: String?
        if truncated, let raw = elements("NextContinuationToken", in: body, maxLength: 4096).first {
            token = unescape(raw)
        }
        return Page(names: names, continuation: token)
    }

    /// S3's error code (`<Code>SignatureDoesNotMatch</Code>`) when it is 1 to 64 letters and digits.
    static func errorCode(_ body: [UInt8]) -> String? {
        guard let value = elements("Code", in: body, maxLength: 64).first, !value.isEmpty,
              value.allSatisfy({ (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }) else { return nil }
        return String(decoding: value, as: UTF8.self)
    }

    /// The text of each `<name>TEXT</name>` no longer than `maxLength` bytes, in order.
    static func elements(_ name: String, in body: [UInt8], maxLength: Int) -> [ArraySlice<UInt8>] {
        let open = Array("<\(name)>".utf8), close = Array("</\(name)>".utf8)
        var out: [ArraySlice<UInt8>] = []
        var i = 0
        let n = body.count
        while i + open.count <= n {
            guard body[i] == UInt8(ascii: "<"), body[i..<(i + open.count)].elementsEqual(open) else {
                i += 1
                continue
            }
            let start = i + open.count
            var end = start
            while end < n, body[end] != UInt8(ascii: "<"), end - start <= maxLength { end += 1 }
            if end + close.count <= n, end - start <= maxLength, body[end..<(end + close.count)].elementsEqual(close) {
                out.append(body[start..<end])
                i = end + close.count
            } else {
                i = end > i ? end : i + 1
            }
        }
        return out
    }

    /// A continuation token as sent back: XML's five entities decoded; nil when anything else
    /// (another `&`, a control or non-ASCII byte) is in it.
    static func unescape(_ raw: ArraySlice<UInt8>) -> String? {
        var text = String(decoding: raw, as: UTF8.self)
        guard !raw.isEmpty, raw.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        for (entity, char) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'")] {
            text = text.split(separator: entity, omittingEmptySubsequences: false).joined(separator: char)
        }
        let parts = text.split(separator: "&amp;", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.contains("&") }) else { return nil }
        return parts.joined(separator: "&")
    }

    /// AWS's URI encoding: every byte but `A-Z a-z 0-9 - _ . ~` (and `/` with `keepSlash`) as `%XX`
    /// (upper-case hex).
    static func uriEncode(_ text: String, keepSlash: Bool = false) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.append(b)
            case UInt8(ascii: "/") where keepSlash:
                out.append(b)
            default:
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
