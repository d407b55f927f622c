// RemoteStores.make: the store a remote cache URL names, checked before any request is made.

/// Builds the remote cache tier's store from its settings.
public enum RemoteStores {}

extension RemoteStores {
    /// The store `settings.url` names:
    /// - `http://HOST[:PORT]/PREFIX/` or `https://...`: objects at `URL + NAME` (a prefix without a
    ///   trailing `/` gets one); no credentials in the URL, no query or fragment.
    /// - `s3://BUCKET/PREFIX`: S3's API signed with SigV4 (the credentials are required), at
    ///   `settings.s3Endpoint` with path-style URLs (`ENDPOINT/BUCKET/KEY`), else at AWS
    ///   (`https://BUCKET.s3.REGION.amazonaws.com/KEY`; path-style when the bucket has a dot).
    /// Nothing is loaded or sent here (libcurl is loaded by the first request).
    /// Throws `.invalidSource("remote cache: ...")` for a URL, endpoint, bucket, prefix or credential
    /// that cannot be used; the message never repeats a credential. Its libcurl requests go
    /// through `engine` (a run's: `FetchRun`).
    public static func make(_ settings: RemoteStoreSettings, engine: CurlEngine = .shared) throws(FetchError) -> any RemoteStoring {
        let url = settings.url
        let lower = url.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            if settings.s3Endpoint != nil { throw bad("an S3 endpoint applies to s3:// URLs only") }
            let base = try httpBase(url, what: "the URL")
            return HTTPRemoteStore(location: .http(base: base.hasSuffix("/") ? base : base + "/"), tls: settings.tls,
                                   connectTimeout: settings.connectTimeout, timeout: settings.timeout,
                                   directReads: settings.directReads, maxDirectReads: settings.maxDirectReads,
                                   proxy: settings.proxy, noProxy: settings.noProxy, engine: engine)
        }
        guard lower.hasPrefix("s3://") else {
            throw bad("the URL must be http://HOST/PREFIX/, https://HOST/PREFIX/ or s3://BUCKET/PREFIX")
        }
        let rest = url.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        var prefix = String(rest.dropFirst(bucket.count).drop { $0 == "/" })
        guard isBucketName(bucket) else {
            throw bad("s3:// needs a bucket name (3 to 63 of a-z, 0-9, '.', '-'), as s3://BUCKET/PREFIX")
        }
        guard isKeyPrefix(prefix) else {
            throw bad("the S3 prefix may only hold letters, digits, '-', '_', '.', '~' and '/' (no '.' or '..' or empty segment)")
        }
        if !prefix.isEmpty && !prefix.hasSuffix("/") { prefix += "/" }
        guard let key = nonEmpty(settings.accessKeyID), let secret = nonEmpty(settings.secretAccessKey) else {
            throw bad("s3:// needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        guard isPrintable(key), !key.contains(":"), isPrintable(secret) else {
            throw bad("AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY holds a character that cannot be sent")
        }
        let token = nonEmpty(settings.sessionToken)
        if let token, !isPrintable(token) { throw bad("AWS_SESSION_TOKEN holds a character that cannot be sent") }
        let region = nonEmpty(settings.region) ?? "us-east-1"
        guard (1...32).contains(region.utf8.count),
              region.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == UInt8(ascii: "-") }) else {
            throw bad("AWS_REGION must be a region name (a-z, 0-9, '-')")
        }
        let bucketURL: String
        if let endpoint = settings.s3Endpoint {
            var base = try httpBase(endpoint, what: "the S3 endpoint")
            while base.hasSuffix("/") { base.removeLast() }
            bucketURL = base + "/" + bucket
        } else if bucket.contains(".") {
            bucketURL = "https://s3.\(region).amazonaws.com/\(bucket)"
        } else {
            bucketURL = "https://\(bucket).s3.\(region).amazonaws.com/"
        }
        return HTTPRemoteStore(location: .s3(bucketURL: bucketURL, bucket: bucket, prefix: prefix, region: region),
                               credentials: .init(accessKeyID: key, secretAccessKey: secret, sessionToken: token),
                               tls: settings.tls, connectTimeout: settings.connectTimeout, timeout: settings.timeout,
                               proxy: settings.proxy, noProxy: settings.noProxy, engine: engine)
    }

    private static func bad(_ message: String) -> FetchError { .invalidSource("remote cache: \(message)") }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    /// Printable ASCII only (a header value or `KEY:SECRET` libcurl is given).
    private static func isPrintable(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// `http(s)://AUTHORITY[/PATH]` checked: an authority without credentials, no query or fragment,
    /// no `.` or `..` segment, no byte that is not a printable URL character. Returned as given.
    private static func httpBase(_ url: String, what: String) throws(FetchError) -> String {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw bad("\(what) must start with http:// or https://")
        }
        guard url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"\"<>\\^`{|}".utf8.contains($0) }) else {
            throw bad("\(what) holds a character that is not allowed in a URL")
        }
        guard !url.contains("?"), !url.contains("#") else { throw bad("\(what) may not have a query or fragment") }
        let afterScheme = url.drop { $0 != ":" }.dropFirst(3)
        let authority = afterScheme.prefix { $0 != "/" }
        guard !authority.isEmpty else { throw bad("\(what) has no host") }
        guard !authority.contains("@") else {
            throw bad("\(what) may not hold credentials (they would be shown wherever the URL is)")
        }
        let path = afterScheme.dropFirst(authority.count)
        guard !path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." }) else {
            throw bad("\(what) may not have a '.' or '..' path segment")
        }
        return path.isEmpty ? url + "/" : url
    }

    private static func isBucketName(_ name: String) -> Bool {
        let b = Array(name.utf8)
        guard (3...63).contains(b.count) else { return false }
        func alnum(_ c: UInt8) -> Bool { (97...122).contains(c) || (48...57).contains(c) }
        return alnum(b[0]) && alnum(b[b.count - 1]) && b.allSatisfy { alnum($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    private static func isKeyPrefix(_ prefix: String) -> Bool {
        guard prefix.utf8.count <= 512 else { return false }
        let ok = prefix.utf8.allSatisfy { b in
            (97...122).contains(b) || (65...90).contains(b) || (48...57).contains(b) || "-_.~/".utf8.contains(b)
        }
        guard ok else { return false }
        var segments = prefix.split(separator: "/", omittingEmptySubsequences: false)
        if segments.last == "" { segments.removeLast() }
        return !segments.contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }
}
