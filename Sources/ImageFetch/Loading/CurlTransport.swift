// CurlTransport: async HTTP(S) transfers over the CCurl engine (libcurl multi, loaded with dlopen).
//
// One loop thread per transport drives the engine (`ifc_engine_run_once` / `ifc_engine_next_done`);
// `perform` queues a request with the thread-safe `ifc_engine_add` and suspends on a continuation
// that the loop thread resumes when the transfer finishes. The thread starts on demand and exits
// after about a second without work.

import CCurl
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A finished transfer. `curlCode == 0` means the transfer completed, whatever the HTTP status.
public struct TransferResult: Sendable {
    /// libcurl's CURLcode (see `IFC_E_*` in ccurl.h): 0 ok, 28 timeout, 42 cancelled, 47 too many
    /// redirects, 63 or 23 with `tooLarge` for the byte cap, ...
    public var curlCode: Int32
    /// Final response status, 0 if none was received.
    public var httpStatus: Int
    /// The byte cap stopped the transfer.
    public var tooLarge: Bool
    public var body: [UInt8]
    public var headers: HTTPHeaders
    public var effectiveURL: String
    public var redirects: Int
    public var downloadBytes: Int64
    /// libcurl's error text when `curlCode != 0`, else empty.
    public var errorMessage: String
    /// The last address the guard refused to connect to (`NetworkOptions.deniedRanges`), else empty.
    public var deniedAddress = ""
    /// The request's watcher stopped it (`TransferRequest.watch`): not a failure; `body` holds what came.
    public var stopped = false
    /// libcurl's cumulative times of the transfer (all 0 when it never started).
    public var times = TransferTimes()

    public init(
        curlCode: Int32,
        httpStatus: Int = 0,
        tooLarge: Bool = false,
        body: [UInt8] = [],
        headers: HTTPHeaders = HTTPHeaders(),
        effectiveURL: String = "",
        redirects: Int = 0,
        downloadBytes: Int64 = 0,
        errorMessage: String = ""
    ) {
        self.curlCode = curlCode
        self.httpStatus = httpStatus
        self.tooLarge = tooLarge
        self.body = body
        self.headers = headers
        self.effectiveURL = effectiveURL
        self.redirects = redirects
        self.downloadBytes = downloadBytes
        self.errorMessage = errorMessage
    }
}

/// libcurl could not be loaded (`ifc_load` failed) or the engine could not be created.
public struct CurlUnavailable: Error, Sendable {
    public let message: String
    public init(message: String) { self.message = message }
}

public final class CurlTransport: Sendable {
    private let core: TransportCore

    /// `totalRate`: bytes per second of response data across all of this transport's transfers
    /// together (one token bucket in the engine, see `ifc_engine_new`); nil: no cap.
    public init(maxTotalConnections: Int = 0, maxPerHost: Int = 0, totalRate: Int64? = nil) throws(CurlUnavailable) {
        var err = [CChar](repeating: 0, count: 512)
        if ifc_load(&err, err.count) != 0 {
            throw CurlUnavailable(message: String(decoding: err.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        guard let engine = ifc_engine_new(maxTotalConnections, maxPerHost, max(0, totalRate ?? 0)) else {
            throw CurlUnavailable(message: "could not create the libcurl multi engine")
        }
        core = TransportCore(engine: EngineHandle(engine))
    }

    /// Runs one transfer. Task cancellation aborts it: the result then has curlCode 42.
    public func perform(_ request: TransferRequest) async -> TransferResult {
        let core = self.core
        let cancel = CancelState()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<TransferResult, Never>) in
                if cancel.isCancelled {
                    request.tap?.end(complete: false)
                    continuation.resume(returning: TransferResult(
                        curlCode: Int32(IFC_E_ABORTED_BY_CALLBACK), effectiveURL: request.url,
                        errorMessage: "transfer cancelled"))
                    return
                }
                let id = core.submit(request, continuation: continuation)
                guard id != 0 else { return }   // submit already resumed the continuation
                if !cancel.started(id) { core.cancel(id) }
            }
        } onCancel: {
            if let id = cancel.cancel() { core.cancel(id) }
        }
    }
}

extension CurlTransport {
    /// Aborts every transfer, queued or running, in one pass of the loop, and every later one:
    /// a connection freed by one abort never starts another queued transfer.
    public func cancelAll() {
        core.cancelAll()
    }

    /// Gives the transfers that ask for cookies (`NetworkOptions.usesCookieEngine`) one cookie
    /// engine holding `lines` (Netscape cookie-file lines) at first. Before the first transfer.
    func useCookies(_ lines: [String]) -> Bool {
        ifc_engine_use_cookies(core.engine.pointer, lines.joined(separator: "\n")) == 0
    }

    /// Every cookie the cookie engine holds now, as Netscape cookie-file lines; nil without one.
    func cookieLines() -> [String]? {
        guard let text = ifc_engine_cookie_list(core.engine.pointer) else { return nil }
        defer { free(text) }
        return String(cString: text).split(separator: "\n").map(String.init)
    }
}

/// One `perform`'s cancellation, without a lock: 0 before the transfer is submitted, its id while
/// it runs, `UInt64.max` once cancelled. Whichever of submit and cancel comes second cancels it.
private final class CancelState: Sendable {
    private let state = Atomic<UInt64>(0)

    var isCancelled: Bool { state.load(ordering: .acquiring) == .max }

    /// Records the running transfer; false when a cancel came first (the caller cancels it).
    func started(_ id: UInt64) -> Bool {
        state.compareExchange(expected: 0, desired: id, ordering: .acquiringAndReleasing).exchanged
    }

    /// Marks it cancelled; the id of a transfer already running, to cancel.
    func cancel() -> UInt64? {
        let previous = state.exchange(.max, ordering: .acquiringAndReleasing)
        return previous == 0 || previous == .max ? nil : previous
    }
}

/// The `ifc_engine *`.
///
/// `@unchecked Sendable` is safe because of how the pointer is used, not what it points to:
/// from any thread only the thread-safe functions of ccurl.h are called on it (`ifc_engine_add`,
/// `ifc_engine_cancel`, `ifc_engine_cancel_all`: they take the engine's mutex and use
/// `curl_multi_wakeup`, which libcurl documents as thread-safe). The loop functions
/// (`ifc_engine_run_once`, `ifc_engine_next_done`) are only called from the one loop thread that
/// `TransportCore` runs at a time (`loopRunning` under the state mutex hands it over), and
/// `ifc_engine_free` only from `TransportCore.deinit`, when no loop thread holds the core.
private final class EngineHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

private struct CoreState {
    var continuations: [UInt64: CheckedContinuation<TransferResult, Never>] = [:]
    /// The taps of the transfers in flight, held (with their owners) until the loop has taken
    /// their results: the engine calls a tap's end before its result, so its context is alive then.
    var taps: [UInt64: BodyTap] = [:]
    var loopRunning = false
}

private final class TransportCore: Sendable {
    let engine: EngineHandle
    let state = Lock(CoreState())

    init(engine: EngineHandle) {
        self.engine = engine
    }

    deinit {
        // A running loop thread retains the core, so none is running here.
        ifc_engine_free(engine.pointer)
    }

    /// Queues `request`; returns its id, or 0 after resuming `continuation` with a failure.
    func submit(_ request: TransferRequest, continuation: CheckedContinuation<TransferResult, Never>) -> UInt64 {
        let cHeaders: [UnsafePointer<CChar>?] = request.headers.map { UnsafePointer(strdup($0)) }
        defer { for h in cHeaders { free(UnsafeMutablePointer(mutating: h)) } }
        // In IFC_S_* order; copied by ifc_engine_add.
        let n = request.network
        let strings: [UnsafeMutablePointer<CChar>?] = [n.tls.caFile, n.tls.caPath, n.proxy, n.noProxy, n.user, n.netrcFile,
                                                        request.awsSigV4, n.resolve.isEmpty ? nil : n.resolve.joined(separator: "\n")]
            .map { $0.flatMap { strdup($0) } }
        // The address guard's rules, IFC_DENY_RULE_SIZE bytes each (copied by ifc_engine_add).
        let deny = n.deniedRanges.flatMap(\.rule)
        defer {
            // A password may be in the credentials: cleared before it is freed.
            if let user = strings[4] { memset(user, 0, strlen(user)) }
            for s in strings { free(s) }
        }

        let (id, failure): (UInt64, String?) = request.url.withCString { url in
            request.userAgent.withCString { ua in
                cHeaders.withUnsafeBufferPointer { headers in request.upload.withUnsafeBufferPointer { upload in deny.withUnsafeBufferPointer { deny in
                    var r = ifc_request()
                    switch request.method {
                    case .get: r.method = Int32(IFC_M_GET)
                    case .head: r.method = Int32(IFC_M_HEAD)
                    case .put:
                        r.method = Int32(IFC_M_PUT)
                        r.upload = upload.baseAddress
                        r.upload_len = upload.count
                    }
                    r.url = url
                    r.user_agent = ua
                    r.headers = headers.count > 0 ? headers.baseAddress : nil
                    r.header_count = Int32(headers.count)
                    r.connect_timeout_ms = milliseconds(request.connectTimeout)
                    r.timeout_ms = milliseconds(request.timeout)
                    r.max_bytes = max(0, request.maxBytes ?? 0)
                    r.max_redirects = Int32(clamping: max(0, request.maxRedirects))
                    let n = request.network
                    r.insecure = n.tls.insecure ? 1 : 0
                    r.deny = deny.baseAddress
                    r.deny_count = Int32(deny.count / Int(IFC_DENY_RULE_SIZE))
                    r.max_recv_speed = max(0, n.limitRate ?? 0)
                    r.cookies = n.usesCookieEngine ? 1 : 0
                    r.range_from = max(0, request.rangeFrom)
                    if n.speedLimit != nil || n.speedTime != nil {
                        r.low_speed_limit = Int(clamping: max(1, n.speedLimit ?? 1))
                        r.low_speed_time = max(1, n.speedTime ?? 30)
                    }
                    withUnsafeMutableBytes(of: &r.strings) { raw in
                        let slots = raw.bindMemory(to: UnsafePointer<CChar>?.self)
                        for (index, value) in strings.enumerated() { slots[index] = value.map { UnsafePointer($0) } }
                    }
                    r.meter = request.meter?.pointer
                    if let tap = request.tap {
                        r.tap_data = tap.onData
                        r.tap_end = tap.onEnd
                        r.tap_ctx = tap.context
                        r.tap_only = request.tapOnly ? 1 : 0
                    }
                    if let watch = request.watch {
                        r.watch = watch.onData
                        r.watch_ctx = watch.context
                    }
                    if let check = request.headersCheck {
                        r.headers_check = check.onHeaders
                        r.headers_check_ctx = check.context
                    }
                    if let gate = request.gate {
                        r.start_wait = gate.startWait
                        r.answered = gate.answered
                        r.gate_ctx = gate.context
                    }
                    // The continuation is stored under the same lock as the add, and the loop
                    // thread looks results up under it: a transfer that finishes at once still
                    // finds its continuation. The loop starts first: a transfer is only queued
                    // when a thread will run it (its tap must end before this call returns
                    // otherwise), and the loop cannot exit idle while the lock is held.
                    return state.withLock { s -> (UInt64, String?) in
                        if !s.loopRunning {
                            guard startLoopThread() else {
                                request.tap?.end(complete: false)   // never queued
                                return (0, "could not start the transfer thread")
                            }
                            s.loopRunning = true
                        }
                        let id = ifc_engine_add(engine.pointer, &r)
                        if id == 0 { return (0, "could not queue the transfer") }
                        s.continuations[id] = continuation
                        s.taps[id] = request.tap
                        return (id, nil)
                    }
                } } }
            }
        }
        if let failure {
            continuation.resume(returning: TransferResult(
                curlCode: 2 /* CURLE_FAILED_INIT */, effectiveURL: request.url, errorMessage: failure))
            return 0
        }
        return id
    }

    func cancel(_ id: UInt64) {
        ifc_engine_cancel(engine.pointer, id)
    }

    func cancelAll() {
        ifc_engine_cancel_all(engine.pointer)
    }

    /// Starts a detached pthread running `runLoop`; it holds a strong reference to the core.
    private func startLoopThread() -> Bool {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let core = Unmanaged<TransportCore>.fromOpaque(raw).takeRetainedValue()
            core.runLoop()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<TransportCore>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    /// The loop thread. Exits after a poll timeout (about 1 s) with nothing in flight.
    private func runLoop() {
        var idleRounds = 0
        while true {
            let active = ifc_engine_run_once(engine.pointer, 1000)
            var r = ifc_result()
            while ifc_engine_next_done(engine.pointer, &r) != 0 {
                let result = TransferResult(r)
                let id = r.id
                ifc_result_free(&r)
                let (continuation, tap) = state.withLock { ($0.continuations.removeValue(forKey: id), $0.taps.removeValue(forKey: id)) }
                continuation?.resume(returning: result)
                withExtendedLifetime(tap) {}   // its end was called before the result
            }
            let exit = state.withLock { s -> Bool in
                guard active == 0, s.continuations.isEmpty else {
                    idleRounds = 0
                    return false
                }
                idleRounds += 1
                if idleRounds < 2 { return false }
                // Under the lock: a submit after this starts a new thread, and this one no
                // longer touches the engine.
                s.loopRunning = false
                return true
            }
            if exit { return }
        }
    }
}

private func milliseconds(_ seconds: Double?) -> Int {
    guard let seconds, seconds > 0, seconds.isFinite else { return 0 }
    return max(1, Int(min(seconds * 1000, Double(Int32.max))))
}

extension TransferResult {
    /// Copies a C result (which stays owned by the caller).
    fileprivate init(_ r: ifc_result) {
        var r = r
        let body: [UInt8]
        if let p = r.body, r.body_len > 0 {
            body = Array(UnsafeBufferPointer(start: p, count: r.body_len))
        } else {
            body = []
        }
        let headerText = r.headers.map { String(cString: $0) } ?? ""
        let effective = r.effective_url.map { String(cString: $0) } ?? ""
        let error = withUnsafeBytes(of: &r.error) { raw -> String in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        self.init(
            curlCode: r.curl_code,
            httpStatus: r.http_status,
            tooLarge: r.too_large != 0,
            body: body,
            headers: HTTPHeaders(parsing: headerText),
            effectiveURL: effective,
            redirects: r.redirects,
            downloadBytes: r.download_bytes,
            errorMessage: error)
        deniedAddress = withUnsafeBytes(of: &r.denied) { raw -> String in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        stopped = r.stopped != 0
        times.dns = r.t_dns
        times.connect = r.t_connect
        times.tls = r.t_tls
        times.firstByte = r.t_first_byte
        times.total = r.t_total
    }
}
