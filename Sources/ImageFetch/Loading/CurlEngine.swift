/// The process's one libcurl engine (`CurlTransport`: one loop thread, many transfers): the origin
/// loader and the remote tier send every libcurl transfer through it. libcurl is loaded (dlopen)
/// when the first transfer asks for it, so a process that only serves cache hits (or reads an
/// http:// tier directly) never loads it. `limit` sets the connection caps before that.
public final class CurlEngine: Sendable {
    public static let shared = CurlEngine()

    private struct State {
        var transport: CurlTransport?
        var maxConnections = 0
        var maxPerHost = 0
        var totalRate: Int64?
        /// `useCookies`' lines; nil: no cookie engine.
        var cookies: [String]?
        var closed = false
    }

    private let state = Lock(State())

    public init() {}

    /// At most `connections` transfers at once (0: no cap) and `perHost` to one host, and at most
    /// `totalRate` bytes per second of response data all together (nil: no cap): every transfer of
    /// the process, the tier's included. Takes effect if the engine is not running yet.
    public func limit(connections: Int, perHost: Int, totalRate: Int64? = nil) {
        state.withLock { s in
            s.maxConnections = max(0, connections)
            s.maxPerHost = max(0, perHost)
            s.totalRate = totalRate.flatMap { $0 > 0 ? $0 : nil }
        }
    }

    /// One cookie engine for the run (a libcurl share), holding at first `lines` (a cookie file's,
    /// `CookieFile`): every transfer whose `NetworkOptions.usesCookieEngine` sends the cookies that
    /// match it and keeps what its responses set. Takes effect if the engine is not running yet.
    public func useCookies(_ lines: [String]) {
        state.withLock { $0.cookies = lines }
    }

    /// The cookies the run holds now (Netscape cookie-file lines), for the jar; nil when no
    /// transfer started the engine (the jar is then what the cookie file said).
    public func cookieLines() -> [String]? {
        state.withLock { $0.transport }?.cookieLines()
    }

    /// The running engine, started now when it is not.
    func transport() throws(FetchError) -> CurlTransport {
        let result: Result<CurlTransport, FetchError> = state.withLock { s in
            if s.closed { return .failure(.cancelled) }
            if let existing = s.transport { return .success(existing) }
            do throws(CurlUnavailable) {
                let created = try CurlTransport(maxTotalConnections: s.maxConnections, maxPerHost: s.maxPerHost, totalRate: s.totalRate)
                if let lines = s.cookies, !created.useCookies(lines) {
                    return .failure(.dependencyMissing("libcurl could not share cookies between transfers"))
                }
                s.transport = created
                return .success(created)
            } catch {
                return .failure(.dependencyMissing("libcurl could not be loaded: \(error.message)"))
            }
        }
        return try result.get()
    }

    /// Aborts every transfer in flight and refuses new ones with `cancelled`, for good (the
    /// interrupt of a batch): no connection freed by an abort starts a queued transfer.
    public func cancelAll() {
        state.withLock { s -> CurlTransport? in
            s.closed = true
            return s.transport
        }?.cancelAll()
    }
}
