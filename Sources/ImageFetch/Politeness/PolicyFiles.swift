/// Fetches the per-origin policy files (robots.txt, `/.well-known/tdmrep.json`): once per URL in
/// this process (later asks share the first's answer), and once per cache across processes: the
/// answer is kept in the cache directory (`PolicyFileStore`) for `freshFor`; the process that takes
/// the URL's lock fetches, the others wait for its answer; with a remote cache tier, the holder
/// takes the tier's copy when it has one, and puts there what it fetched. A fetch goes through
/// the pipeline's loader, so it is paced and gated like every other request to the origin
/// (`OriginGatedLoader`: the host-down breaker counts it), follows up to `maxRedirects`
/// redirects, and reads at most `maxBytes`. 2xx and 4xx (but 429) are answers; 429, 5xx and no
/// answer make the file `unavailable`, unless a copy younger than `staleLimit` is kept (RFC 9309
/// §2.3.1.4); a 429 or 5xx is kept `unavailableFor`, so other processes do not ask again at once
/// (no answer is not: the dead-host breaker, which counted the fetch, decides for the next ones).
public final class PolicyFiles: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// The origin answered: 2xx with the file's `body`, or 4xx (no file, `body` empty).
        case answered(status: Int, body: [UInt8])
        /// 429, 5xx or no answer, and no usable copy: the fetch's error.
        case unavailable(FetchError)
    }

    public static let freshFor: Double = 86_400
    public static let staleLimit: Double = 30 * 86_400
    static let unavailableFor: Double = 600
    static let maxRedirects = 5
    static let maxBytes: Int64 = 4 << 20
    /// How often a process waiting for another's fetch reads the store again.
    static let lockPoll: Double = 0.05
    static let memoLimit = 65536

    let store: PolicyFileStore?
    let loader: any DataLoading
    /// The remote cache tier: an answer another cache fetched is taken from it, one fetched here is
    /// put there (as the tier's mode allows); nil: none.
    let remote: RemoteCache?
    let sleeper: any Sleeping
    let holder: String
    private let memo = Lock<[String: Outcome]>([:])
    private let flights = TaskCoalescer<String, Outcome>()
    private let clock: @Sendable () -> Double

    public init(store: PolicyFileStore?, loader: any DataLoading, remote: RemoteCache? = nil, sleeper: any Sleeping = TaskSleeper(),
                holder: String = LockFile.processHolder(started: HTTPDate.iso8601(FileSystem.now())),
                now: @escaping @Sendable () -> Double = { FileSystem.now() }) {
        self.store = store
        self.loader = loader
        self.remote = remote
        self.sleeper = sleeper
        self.holder = holder
        self.clock = now
    }

    /// The answer for `url` (an http(s) URL of an origin's file), fetched with `request`'s network
    /// options and timeouts when neither this process nor the cache has it.
    public func fetch(_ url: String, like request: LoadRequest) async -> Outcome {
        if let known = memo.withLock({ $0[url] }) { return known }
        let (value, _) = await flights.value(for: url, cancelled: .unavailable(.cancelled)) { [self] in
            await self.shared(url, like: request)
        }
        if value != .unavailable(.cancelled) {
            memo.withLock { m in if m[url] != nil || m.count < PolicyFiles.memoLimit { m[url] = value } }
        }
        return value
    }

    /// The cache's answer, else this process's fetch under the URL's lock.
    private func shared(_ url: String, like request: LoadRequest) async -> Outcome {
        guard let store else { return await network(url, like: request) }
        if let usable = usable(store.read(url)) { return usable }
        var lock: LockFile?
        waiting: while true {
            switch store.tryLock(url, holder: holder) {
            case .acquired(let held)?:
                lock = held
                break waiting
            case .held?:
                do { try await sleeper.sleep(seconds: PolicyFiles.lockPoll) } catch { return .unavailable(.cancelled) }
                if let usable = usable(store.read(url)) { return usable }
            default:
                break waiting   // a filesystem without locks: each process fetches
            }
        }
        defer { lock?.release() }
        let kept = store.read(url)
        if let usable = usable(kept) { return usable }   // written while this one waited
        if let answer = await fromTier(url) {
            store.write(answer)
            return .answered(status: answer.status, body: answer.body)
        }
        let fetched = clock()
        let outcome = await network(url, like: request)
        switch outcome {
        case .answered(let status, let body):
            let answer = PolicyFileStore.Stored(url: url, fetched: fetched, status: status, body: body)
            store.write(answer)
            await toTier(answer)
        case .unavailable(.cancelled):
            break
        case .unavailable(let error):
            // A kept answer younger than `staleLimit` stands in (and stays kept as it is).
            if let kept, kept.status > 0, kept.status < 500, kept.status != 429, clock() - kept.fetched < PolicyFiles.staleLimit {
                return .answered(status: kept.status, body: kept.body)
            }
            // An HTTP answer is kept; no answer is not: the next process asks the origin's breaker again.
            let status = PolicyFiles.status(of: error)
            if status > 0 { store.write(PolicyFileStore.Stored(url: url, fetched: fetched, status: status, body: [])) }
        }
        return outcome
    }

    /// A kept answer still in force: an answer younger than `freshFor`, an unavailable one younger
    /// than `unavailableFor`.
    private func usable(_ stored: PolicyFileStore.Stored?) -> Outcome? {
        guard let stored else { return nil }
        let age = clock() - stored.fetched
        if PolicyFiles.isAnswer(stored.status) {
            return age < PolicyFiles.freshFor ? .answered(status: stored.status, body: stored.body) : nil
        }
        return age < PolicyFiles.unavailableFor ? .unavailable(.httpStatus(stored.status, retryAfter: nil)) : nil
    }

    /// The tier's copy of `url`'s answer when it is one younger than `freshFor` (hostile: parsed
    /// as a file of the cache directory is, its URL the one asked for), else nil.
    private func fromTier(_ url: String) async -> PolicyFileStore.Stored? {
        guard let remote, remote.mode != .write,
              let bytes = try? await remote.store.get(PolicyFileStore.remoteName(url), maxBytes: Int64(PolicyFileStore.maxFileBytes)),
              let stored = PolicyFileStore.parse(bytes), stored.url == url, PolicyFiles.isAnswer(stored.status) else { return nil }
        let age = clock() - stored.fetched
        return age >= -300 && age < PolicyFiles.freshFor ? stored : nil
    }

    /// Puts an answer fetched here in the tier, for the other caches (a failure only costs them a fetch).
    private func toTier(_ answer: PolicyFileStore.Stored) async {
        guard let remote, remote.mode != .read else { return }
        try? await remote.store.put(PolicyFileStore.remoteName(answer.url), PolicyFileStore.encode(answer), contentType: "text/plain")
    }

    static func isAnswer(_ status: Int) -> Bool { (200...499).contains(status) && status != 429 }

    static func status(of error: FetchError) -> Int {
        if case .httpStatus(let status, _) = error { return status }
        return 0
    }

    /// One fetch over the network, its redirects followed: with the request's User-Agent, TLS,
    /// proxy, addresses and speed, never its own headers, cookies or credentials (the answer is
    /// the origin's, kept and shared as such).
    private func network(_ url: String, like request: LoadRequest) async -> Outcome {
        var network = request.network
        network.headers = []
        network.referer = nil
        network.cookie = nil
        network.cookieFile = nil
        network.cookieJar = nil
        network.user = nil
        network.netrcFile = nil
        var target = url
        for _ in 0...PolicyFiles.maxRedirects {
            var load = LoadRequest(source: .http(target), connectTimeout: request.connectTimeout, timeout: request.timeout,
                                   maxBytes: PolicyFiles.maxBytes, network: network)
            load.errorResponses = true
            load.allowsConstrainedNetworkAccess = true
            let response: LoadResponse
            do { response = try await loader.load(load) } catch {
                if case .tooLarge = error { return .answered(status: 200, body: []) }   // over 4 MiB: read as no rules
                return .unavailable(error)
            }
            if let location = response.redirectLocation {
                guard let next = PolicyFiles.resolve(location, against: target) else { return .answered(status: 404, body: []) }
                target = next
                continue
            }
            let status = response.status
            if (200...299).contains(status) { return .answered(status: status, body: Array(response.bytes.prefix(PolicyFileStore.maxBodyBytes))) }
            if PolicyFiles.isAnswer(status) { return .answered(status: status, body: []) }
            return .unavailable(.httpStatus(status, retryAfter: nil))
        }
        // More than 5 redirects: RFC 9309 §2.3.1.2 lets a crawler take it as unavailable (4xx).
        return .answered(status: 404, body: [])
    }

    /// `location` resolved against `base` when it is an http(s) URL or an absolute path, else nil.
    static func resolve(_ location: String, against base: String) -> String? {
        let lower = location.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return location }
        guard location.hasPrefix("/"), !location.hasPrefix("//"), let root = PolicyFiles.root(of: base) else { return nil }
        return root + location
    }

    /// `scheme://authority` of an http(s) URL, without any userinfo; nil for another.
    public static func root(of url: String) -> String? {
        let lower = url.lowercased()
        let scheme: String
        if lower.hasPrefix("http://") { scheme = "http://" } else if lower.hasPrefix("https://") { scheme = "https://" } else { return nil }
        var authority = url.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        guard !authority.isEmpty else { return nil }
        return scheme + authority.lowercased()
    }

    /// The path and query of an http(s) URL (`/` when it has none), without its fragment.
    public static func pathAndQuery(of url: String) -> String {
        let lower = url.lowercased()
        let skip = lower.hasPrefix("http://") ? 7 : lower.hasPrefix("https://") ? 8 : 0
        guard skip > 0 else { return "/" }
        let rest = url.dropFirst(skip).drop { $0 != "/" && $0 != "?" && $0 != "#" }
        let path = rest.prefix { $0 != "#" }
        if path.isEmpty { return "/" }
        return path.hasPrefix("?") ? "/" + path : String(path)
    }
}
