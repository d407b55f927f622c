import ArgumentKit
import ImageFetch

/// The remote cache tier as the command line and the environment configure it. Credentials are read
/// from the environment only (never an option, never printed, never stored).
struct RemoteSettings {
    var store: RemoteStoreSettings
    /// `--remote-cache-mode`, default read-write.
    var mode: RemoteCacheMode
    /// `--remote-timeout`: the longest any request to the tier may take (at least 1 s), and the whole
    /// wait for queued uploads at the end of the run. Default 30 s.
    var timeout: Double

    /// The store `--remote-cache` (else `IMGFETCH_REMOTE_CACHE`) names, with `--s3-endpoint` and the
    /// AWS variables; nil when neither is given. Whom its https trusts is its own setting
    /// (`--remote-cacert`, `--remote-insecure`, else curl's variables): the origin's `--cacert`,
    /// `--capath` and `-k` never apply to the tier, which is trusted for every image it serves.
    /// `proxy`, `noProxy`: the origin's `-x` and `--noproxy` (get and prefetch), which apply to the
    /// tier as `http_proxy` and `no_proxy` do.
    static func make(from parsed: ParsedCommand, environment: (String) -> String?,
                     proxy: String? = nil, noProxy: String? = nil) throws(UsageError) -> RemoteStoreSettings? {
        let given = parsed[OptionKeys.remoteCache].flatMap { $0.isEmpty ? nil : $0 }
        guard let url = given ?? environment("IMGFETCH_REMOTE_CACHE").flatMap({ $0.isEmpty ? nil : $0 }) else { return nil }
        let name = given != nil ? "'--remote-cache'" : "IMGFETCH_REMOTE_CACHE"
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("s3://"),
              HTTPHeaders.validValue(url) != nil, !url.contains(" ") else {
            throw UsageError("invalid value '\(Source.abbreviated(url))' for \(name): expected http://HOST/PREFIX/, https://HOST/PREFIX/ or s3://BUCKET/PREFIX")
        }
        var endpoint = parsed[OptionKeys.s3Endpoint]
        if let e = endpoint {
            let l = e.lowercased()
            guard l.hasPrefix("http://") || l.hasPrefix("https://"), HTTPHeaders.validValue(e) != nil, !e.contains(" ") else {
                throw UsageError("invalid value '\(Source.abbreviated(e))' for '--s3-endpoint': expected an http:// or https:// URL")
            }
        }
        if endpoint?.isEmpty == true { endpoint = nil }
        func env(_ n: String) -> String? { environment(n).flatMap { $0.isEmpty ? nil : $0 } }
        let cacert = try parsed[OptionKeys.remoteCacert].map { v throws(UsageError) in try NetworkSettings.readableFile(v, option: "--remote-cacert") }
        let tls = TLSOptions.resolve(cacert: cacert, capath: nil, insecure: parsed[OptionKeys.remoteInsecure], environment: environment)
        return RemoteStoreSettings(url: url, s3Endpoint: endpoint, accessKeyID: env("AWS_ACCESS_KEY_ID"),
                                   secretAccessKey: env("AWS_SECRET_ACCESS_KEY"), sessionToken: env("AWS_SESSION_TOKEN"),
                                   region: env("AWS_REGION"), tls: tls,
                                   directReads: !proxyApplies(to: url, proxy: proxy, noProxy: noProxy, environment: env),
                                   proxy: proxy, noProxy: noProxy)
    }

    /// Whether libcurl would send an http:// tier's requests through a proxy: `-x` (else
    /// `http_proxy`, `all_proxy`, `ALL_PROXY`) names one and `--noproxy` (else `no_proxy`,
    /// `NO_PROXY`) does not name the tier's host. Matching is a subset of curl's (`*`, the host, or a
    /// domain it is in): when in doubt, true, and the reads go through libcurl, which decides.
    static func proxyApplies(to url: String, proxy: String?, noProxy: String?, environment env: (String) -> String?) -> Bool {
        guard proxy != nil || ["http_proxy", "all_proxy", "ALL_PROXY"].contains(where: { env($0) != nil }) else { return false }
        guard let list = noProxy ?? env("no_proxy") ?? env("NO_PROXY"), let host = host(of: url) else { return true }
        for item in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            var entry = item.lowercased()
            if entry == "*" { return false }
            if entry.hasPrefix(".") { entry.removeFirst() }
            if entry.hasPrefix("[") && entry.hasSuffix("]") { entry = String(entry.dropFirst().dropLast()) }
            if entry.isEmpty { continue }
            if host == entry || host.hasSuffix("." + entry) { return false }
        }
        return true
    }

    /// The lower-cased host of `scheme://HOST[:PORT]/...` (an IPv6 address without brackets); nil
    /// when there is none.
    static func host(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        var authority = url[colon...].dropFirst(3).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            return authority[authority.index(after: authority.startIndex)..<close].lowercased()
        }
        let host = authority.prefix { $0 != ":" }
        return host.isEmpty ? nil : host.lowercased()
    }

    /// The tier of get and prefetch: the store, `--remote-cache-mode` and `--remote-timeout`; nil
    /// when no remote cache is given. A mode or timeout without one is accepted and unused (a config
    /// file may set them for runs that name a store in the environment).
    static func tier(from parsed: ParsedCommand, environment: (String) -> String?,
                     proxy: String? = nil, noProxy: String? = nil) throws(UsageError) -> RemoteSettings? {
        let mode = try parsed[OptionKeys.remoteCacheMode]
            .flatMap(RemoteCacheMode.init(rawValue:)) ?? .readWrite
        let timeout = try parsed[OptionKeys.remoteTimeout] ?? 30
        guard var store = try make(from: parsed, environment: environment, proxy: proxy, noProxy: noProxy) else { return nil }
        // Each request to the tier is bounded by the same time (at least 1 s): a store that accepts
        // connections and never answers costs at most that before the origin is used.
        store.timeout = max(timeout, 1)
        store.connectTimeout = min(store.connectTimeout, store.timeout)
        return RemoteSettings(store: store, mode: mode, timeout: timeout)
    }

    /// The warning `--remote-insecure` gives, every time it is used with a tier (even with --quiet).
    static let insecureWarning = "warning: --remote-insecure: the remote cache's certificates and host names are not verified: anyone on the path may serve or receive its images"
}

