/// How an http(s) request is made: its headers and credentials, whom it trusts, which way it goes
/// and how fast. One value travels whole from the request to the loader, and what it adds to the
/// cache key and to the key that shares downloads in flight is computed here, next to it: a new
/// option is added in one place. Files and data: URLs ignore it.
///
/// Identity-bearing values (`Authorization`, `Cookie` and `Proxy-Authorization` headers, `cookie`,
/// `user`, `netrcFile`) only ever leave this value as keyed digests (`CredentialDigest`) or on the wire.
public struct NetworkOptions: Sendable, Hashable {
    /// One request header: `value` nil removes a header libcurl would send by default (`-H 'Name:'`).
    public struct Header: Sendable, Hashable {
        public var name: String
        public var value: String?
        public init(name: String, value: String?) {
            self.name = name
            self.value = value
        }

        /// Parses `Name: value` or `Name:`; nil when the name is empty or not a token, or when the
        /// value could end the header line (a control character other than tab).
        public init?(parsing text: String) {
            guard let colon = text.firstIndex(of: ":") else { return nil }
            let name = String(text[..<colon])
            guard !name.isEmpty, name.utf8.allSatisfy(Header.isTokenByte) else { return nil }
            var value = Substring(text[text.index(after: colon)...])
            while value.first == " " || value.first == "\t" { value.removeFirst() }
            guard HTTPHeaders.validValue(String(value)) != nil else { return nil }
            self.init(name: name, value: value.isEmpty ? nil : String(value))
        }

        /// The header carries who is asking (`Authorization`, `Cookie`, `Proxy-Authorization`): never
        /// stored, printed, or keyed other than by its digest.
        public var carriesIdentity: Bool { NetworkOptions.identityHeaders.contains(name.lowercased()) }

        /// The line libcurl is given: `Name: value`, or `Name:` to remove a default header.
        var line: String { value.map { "\(name): \($0)" } ?? "\(name):" }

        public static func isTokenByte(_ b: UInt8) -> Bool {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: "!#$%&'*+-.^_`|~".utf8.contains(b)
            }
        }
    }

    /// Lower-cased names of the headers that carry identity.
    public static let identityHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    /// Extra headers, in order (`-H`). Default none.
    public var headers: [Header] = []
    /// `User-Agent`; nil = `imgfetch/VERSION`.
    public var userAgent: String?
    /// `Referer`; nil = none.
    public var referer: String?
    /// `Cookie` header value (`k=v; k2=v2`), sent and never stored; nil = none.
    public var cookie: String?
    /// The cookie file (`-b FILE`) read when the run started: libcurl's cookie engine starts with
    /// it, and a request's keys include a digest of its lines that match the request's host. nil = none.
    public var cookieFile: CookieFile?
    /// Where the run's cookies are written at its end (`-c FILE`, written by the CLI); nil = no jar.
    /// Either this or `cookieFile` turns the cookie engine on (`usesCookieEngine`).
    public var cookieJar: String?
    /// `USER:PASSWORD` for Basic authentication; nil = none (a URL's userinfo still applies).
    public var user: String?
    /// A netrc file whose entry for the host is used (required); nil = none.
    public var netrcFile: String?
    public var tls = TLSOptions()
    /// Proxy URL (`-x`); nil = libcurl reads `http_proxy`, `https_proxy`, `all_proxy`.
    public var proxy: String?
    /// Hosts reached without the proxy (comma list, `*` = all); nil = libcurl reads `no_proxy`.
    public var noProxy: String?
    /// The address guard: no connection is made to an address in one of these ranges (checked on
    /// the address actually connected to, after name resolution, for every request of this value:
    /// the source, each redirect hop, alternatives, a low-data source). Default none.
    public var deniedAddresses: [AddressRange] = []
    /// Also deny `AddressRange.nonPublic` (loopback, private, link-local, CGNAT, ULA, unspecified).
    public var denyPrivateAddresses = false
    /// `HOST:PORT:ADDR` entries, curl's `--resolve`: HOST at PORT is reached at ADDR. Default none.
    /// A response fetched with one is never shared (`verifiesOrigin`).
    public var resolve: [String] = []
    /// curl's `--location-trusted`: everything that identifies the user (identity headers, cookie,
    /// user, netrc file) is also sent to the other hosts a redirect reaches (`sent(to:origin:)`),
    /// whoever they are. In the cache key when set (`KeyPart.locationTrusted`): those hosts may
    /// answer a logged-in request with another image. Default false.
    public var locationTrusted = false
    /// Download speed cap in bytes per second; nil = none.
    public var limitRate: Int64?
    /// Abort (a retryable timeout) when slower than `speedLimit` bytes/s for `speedTime` seconds.
    /// Either alone takes curl's default for the other (1 byte/s, 30 s); nil both = never.
    public var speedLimit: Int64?
    public var speedTime: Int?
    /// A batch's bounds when neither is given: 1024 bytes/s for 30 s.
    public static let batchSpeedLimit: Int64 = 1024
    public static let batchSpeedTime = 30

    /// Every transfer bounded by a lowest speed: the batch defaults unless either is set.
    public mutating func boundSpeed() {
        guard speedLimit == nil, speedTime == nil else { return }
        speedLimit = NetworkOptions.batchSpeedLimit
        speedTime = NetworkOptions.batchSpeedTime
    }

    public init() {}

    /// The header lines sent, in order: `Referer`, `Cookie`, then `-H` headers (which win).
    public var headerLines: [String] {
        var lines: [String] = []
        if let referer { lines.append("Referer: \(referer)") }
        if let cookie { lines.append("Cookie: \(cookie)") }
        lines += headers.map(\.line)
        return lines
    }

    /// Whether the request sends anything that identifies its user (headers, cookie, -u, netrc), or
    /// may send it: with the cookie engine on, a cookie a server set during the run is sent (known
    /// only after the request, so counted before the lookup).
    public var carriesIdentity: Bool {
        cookie != nil || usesCookieEngine || user != nil || netrcFile != nil || headers.contains(where: \.carriesIdentity)
    }

    /// Transfers keep and send cookies as curl does (the run's one cookie engine, `CurlEngine.useCookies`).
    /// `-c FILE` alone turns it on: a request is then credentialed (its key has `KeyPart.cookieEngine`,
    /// the tier gets only what says `public`), whether or not a cookie is sent in the end.
    public var usesCookieEngine: Bool { cookieFile != nil || cookieJar != nil }

    /// The cookie file's lines sent to `source` (`CookieFile.lines(for:)`), none without one.
    public func jarLines(for source: Source) -> [String] { cookieFile?.lines(for: source) ?? [] }

    /// Whether a response proves it came from the origin: its certificate verified (not `-k`) and
    /// its address found by name resolution (no `resolve` entry).
    /// A response that does not is never uploaded to a shared tier (`ImagePipeline.Sharing.never`).
    public var verifiesOrigin: Bool { !tls.insecure && resolve.isEmpty }

    /// Every range the guard denies: `deniedAddresses`, and `AddressRange.nonPublic` with
    /// `denyPrivateAddresses`.
    public var deniedRanges: [AddressRange] {
        deniedAddresses + (denyPrivateAddresses ? AddressRange.nonPublic : [])
    }

    /// What this value adds to a persistent cache key (`EntryKey.network`): the headers, User-Agent,
    /// Referer, cookie, user and netrc file, identity-bearing values as keyed digests under
    /// `credentials`; nil when none is set, so the key is that of a plain request. TLS, proxy and
    /// speed settings do not change the response and are not in it (`RequestPlan.classification`).
    public struct KeyPart: Sendable, Hashable, Encodable {
        /// Each header as sent (name lower-cased), an identity-bearing value as its digest.
        var headers: [KeyedHeader]
        var userAgent: String?
        var referer: String?
        var cookie: String?
        /// The digest of the cookie file's lines that match the host (nil: none match).
        var cookieFile: String?
        /// true with the cookie engine on (`-b` or `-c`), else nil (absent: the keys made before it stay).
        var cookieEngine: Bool?
        var user: String?
        var netrcFile: String?
        /// true with `locationTrusted`, else nil (absent: the keys made before it stay).
        var locationTrusted: Bool?
    }

    struct KeyedHeader: Sendable, Hashable, Encodable {
        var name: String
        var value: String?
        var digest: String?
    }

    /// Nothing of the request's own is sent, nor may be (no header, User-Agent, Referer, cookie, cookie
    /// engine, user or netrc file): the plain request, with no `keyPart`.
    var shapesNothing: Bool {
        headers.isEmpty && userAgent == nil && referer == nil && cookie == nil && !usesCookieEngine && user == nil
            && netrcFile == nil && !locationTrusted
    }

    /// What the request adds to the keys of `source`: see `KeyPart`.
    public func keyPart(credentials: CredentialDigest, source: Source) throws(FetchError) -> KeyPart? {
        if shapesNothing { return nil }
        let jar = jarLines(for: source)
        var keyed: [KeyedHeader] = []
        for header in headers {
            let name = header.name.lowercased()
            if header.carriesIdentity, let value = header.value {
                keyed.append(KeyedHeader(name: name, digest: try credentials.hex(.header, name + ":" + value)))
            } else {
                keyed.append(KeyedHeader(name: name, value: header.value))
            }
        }
        func digest(_ kind: CredentialDigest.Kind, _ value: String?) throws(FetchError) -> String? {
            guard let value else { return nil }
            return try credentials.hex(kind, value)
        }
        return KeyPart(headers: keyed, userAgent: userAgent, referer: referer, cookie: try digest(.cookie, cookie),
                       cookieFile: try digest(.cookieFile, jar.isEmpty ? nil : jar.joined(separator: "\n")),
                       cookieEngine: usesCookieEngine ? true : nil,
                       user: try digest(.user, user), netrcFile: try digest(.netrc, netrcFile),
                       locationTrusted: locationTrusted ? true : nil)
    }

    /// What is sent to `target` when the request was for `origin` (a redirect's hop): everything
    /// when both have the same scheme, host and port; otherwise nothing that may identify the user
    /// (no `-H` header: the upload rule counts each as a credential, since an API key or a token may
    /// have any name; no cookie, user, netrc file) — curl's rule for -u, applied to all of them —
    /// unless `locationTrusted`. A header removal (`-H 'Name:'`) stays; the cookie engine sends
    /// what its cookies' domains allow, as curl's does.
    public func sent(to target: Source, origin: Source) -> NetworkOptions {
        guard !locationTrusted, let a = origin.origin, let b = target.origin, a != b else { return self }
        var n = self
        n.headers.removeAll { $0.value != nil }
        n.cookie = nil
        n.user = nil
        n.netrcFile = nil
        return n
    }
}

extension Source {
    /// `scheme://host:port` of an http(s) URL, lower-cased, the default port made explicit; nil
    /// for other sources.
    public var origin: String? {
        guard case .http(let url) = self, let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon].lowercased()
        var authority = url[url.index(after: colon)...].dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = Substring(authority), port = scheme == "https" ? "443" : "80"
        let portStart = authority.hasPrefix("[") ? authority.firstIndex(of: "]").map { authority.index(after: $0) } : authority.startIndex
        if let portStart, let c = authority[portStart...].lastIndex(of: ":") {
            host = authority[..<c]
            let p = authority[authority.index(after: c)...]
            if !p.isEmpty { port = String(p) }
        }
        return "\(scheme)://\(host.lowercased()):\(port)"
    }
}

extension CredentialDigest.Kind {
    /// An identity-bearing request header (`name:value`).
    public static let header = CredentialDigest.Kind("header")
    public static let cookie = CredentialDigest.Kind("cookie")
    public static let cookieFile = CredentialDigest.Kind("cookie-file")
    public static let user = CredentialDigest.Kind("user")
    public static let netrc = CredentialDigest.Kind("netrc")
}
