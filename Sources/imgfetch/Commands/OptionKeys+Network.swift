import ArgumentKit

/// How http(s) requests are made (get and prefetch): see NetworkSettings.swift and man imgfetch (NETWORK).
extension OptionKeys {
    static let header: ListKey = .repeated("header", short: "H", valueName: "'NAME: VALUE'", help: "Send this request header (repeatable). 'NAME:' with no value removes a header sent by default (User-Agent, Accept). Part of the cache key; Authorization and Cookie only as a keyed digest, never stored or shown. Not sent to another host after a redirect (unless --location-trusted).")
    static let userAgent: TextKey = .value("user-agent", short: "A", valueName: "TEXT", help: "The User-Agent header. Part of the cache key.", defaultDescription: "imgfetch/VERSION")
    static let referer: TextKey = .value("referer", short: "e", valueName: "URL", help: "The Referer header (image hosts that refuse hotlinks want one). Part of the cache key.")
    static let user: TextKey = .value("user", short: "u", valueName: "USER:PASSWORD", help: "Basic authentication. Nothing is prompted: a missing password is an error. Never sent to another host after a redirect (unless --location-trusted); keyed by digest, never stored or shown; blanked in the process's command line once read (--netrc-file keeps it off the command line).")
    static let locationTrusted: FlagKey = .flag("location-trusted", help: "As curl's: also send the login (-u, --netrc, -b, every -H header: Authorization, Cookie, X-Api-Key, any other) to every other host a redirect reaches. Dangerous: any host the first one redirects to (or a redirect planted there) gets your password. Part of the cache key.")
    static let netrc: FlagKey = .flag("netrc", help: "Take the host's login and password from ~/.netrc (required).")
    static let netrcFile: TextKey = .value("netrc-file", valueName: "FILE", help: "As --netrc, from FILE.", completion: .file)
    static let cookie: TextKey = .value("cookie", short: "b", valueName: "'NAME=VALUE[; ...]'|FILE", help: "Send these cookies (sent, never stored; keyed by digest; never sent to another host after a redirect). A value without = is a Netscape cookie file, read at start: its cookies go where their domains say, as curl's, and keep what servers set during the run; each request's key includes a digest of the file's lines for its host. Never stored in the cache; with the cookie engine on (a file, or -c), every request is credentialed: its own keys, and the remote cache gets it only when public.", completion: .file)
    static let cookieJar: TextKey = .value("cookie-jar", short: "c", valueName: "FILE", help: "Write every cookie of the run (the cookie file's and those servers set) to FILE at the end, in the Netscape format, mode 0600, atomically. Turns the cookie engine on: every request is credentialed (its own keys; the remote cache only when public).", completion: .file)
    static let cacert: TextKey = .value("cacert", valueName: "FILE", help: "Trust the CA certificates in FILE (PEM). Precedence as curl's: --cacert, then CURL_CA_BUNDLE, then SSL_CERT_FILE / SSL_CERT_DIR, then the system bundle. For the origin only (the remote cache has --remote-cacert).", completion: .file)
    static let capath: TextKey = .value("capath", valueName: "DIR", help: "Trust the CA certificates in DIR (hashed, as c_rehash makes them).", completion: .directory)
    static let insecure: FlagKey = .flag("insecure", short: "k", help: "Do not verify the origin's certificate or name (warns on stderr every time). Never applies to the remote cache (--remote-insecure); what is fetched with it is never uploaded there.")
    static let proxy: TextKey = .value("proxy", short: "x", valueName: "URL", help: "Use this proxy ([scheme://]host[:port], http or socks). Without it, http_proxy, https_proxy and all_proxy (and no_proxy) are read, as curl does. The remote cache's requests use it too.")
    static let noproxy: TextKey = .value("noproxy", valueName: "HOSTS", help: "Comma-separated hosts (or domains) reached without the proxy; * for all. Overrides no_proxy, for the origin and the remote cache.")
    static let resolve: ListKey = .repeated("resolve", valueName: "HOST:PORT:ADDR", help: "Reach HOST at PORT at ADDR (an IP address; several comma-separated), as curl's --resolve (repeatable). What is fetched with it is never uploaded to the remote cache.")
    static let denyAddress: ListKey = .repeated("deny-address", valueName: "CIDR", help: "Never connect to an address in CIDR (ADDRESS/PREFIX or one address; repeatable): checked on the address connected to, for the source, every redirect, alternatives and low-data sources; not the remote cache. A refusal fails the source with code denied_address. Not with a proxy unless --noproxy '*'.")
    static let denyPrivateAddresses: FlagKey = .flag("deny-private-addresses", help: "As --deny-address for every address that is not the public Internet: loopback, RFC 1918, link-local (169.254.169.254 too), CGNAT, unique local IPv6, unspecified, and their IPv4-mapped IPv6 forms.")
    static let limitRate: ValueKey<Int64> = .value("limit-rate", valueName: "BYTES_PER_SECOND", help: "Cap each download's speed (K, M, G suffixes): with -j N, the run may take N times it.", parser: ValueParsers.byteSize)
    static let limitRateTotal: ValueKey<Int64> = .value("limit-rate-total", valueName: "BYTES_PER_SECOND", help: "Cap the whole run's download speed: every transfer together, the origin's and the remote cache's (one token bucket; K, M, G suffixes). Holds from the first bytes, where --limit-rate lets a short transfer through at full speed.", parser: ValueParsers.byteSize)
    static let speedLimit: ValueKey<Int> = .int("speed-limit", valueName: "N", help: "Give up on a transfer slower than N bytes/s for --speed-time seconds (a timeout: retried with --retry). prefetch bounds every transfer so by default (a batch never hangs on a server that trickles); get only when either is given.", defaultDescription: "prefetch: 1024; get: none, 1 with --speed-time", range: 1...Int(Int32.max))
    static let speedTime: ValueKey<Int> = .int("speed-time", valueName: "SECONDS", help: "See --speed-limit.", defaultDescription: "30", range: 1...86_400)
    static let config: TextKey = .value("config", valueName: "FILE", help: "Read options from FILE instead of $XDG_CONFIG_HOME/imgfetch/config (~/.config/imgfetch/config): one long option per line, '# comments'. The command line wins.", completion: .file)
    static let noConfig: FlagKey = .flag("no-config", help: "Read no config file.")
}

extension Specs {
    /// How http(s) requests are made (get and prefetch): see NetworkSettings.swift and man imgfetch (NETWORK).
    static let network = OptionSpec.list(
        OptionKeys.header, OptionKeys.userAgent, OptionKeys.referer, OptionKeys.user, OptionKeys.locationTrusted,
        OptionKeys.netrc, OptionKeys.netrcFile, OptionKeys.cookie, OptionKeys.cookieJar, OptionKeys.cacert,
        OptionKeys.capath, OptionKeys.insecure, OptionKeys.proxy, OptionKeys.noproxy, OptionKeys.resolve,
        OptionKeys.denyAddress, OptionKeys.denyPrivateAddresses, OptionKeys.limitRate, OptionKeys.limitRateTotal,
        OptionKeys.speedLimit, OptionKeys.speedTime, OptionKeys.config, OptionKeys.noConfig)
}
