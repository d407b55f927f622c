// DirectHTTPClient: GETs of a plain http:// server straight over TCP (CNet), one connection per
// request, closed after the answer, without loading libcurl. The remote cache tier uses it for
// object reads from an http:// store when no proxy applies: a remote hit then costs what the two
// small requests cost, not libcurl's loading (more than the rest of such a `get`: figure 15).
// Everything else (https, proxies, S3 signing, PUT, listings, the origin) goes through libcurl.

import CNet
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Plain HTTP/1.1 GETs of one server: see the file comment. Each request is bounded by
/// `connectTimeout` (each address tried) and `timeout` (the whole exchange), and what the server
/// sends by `maxBodyBytes` plus 64 KiB of headers. Task cancellation ends a request at once.
public struct DirectHTTPClient: Sendable {
    /// The server and the path under it, from an `http://` base URL.
    public struct Endpoint: Sendable, Equatable {
        /// A host name or an IP address (IPv6 without brackets), as the resolver takes it.
        public let host: String
        /// Decimal, 80 when the URL gives none.
        public let port: String
        /// The `Host` header, as libcurl writes it: the host as given (IPv6 in brackets), then `:PORT`
        /// unless the port is 80.
        public let authority: String
        /// The base URL's path (starts and ends with `/`).
        public let basePath: String

        /// Nil unless `base` is `http://HOST[:PORT]/PATH/` with a plain host name, an IPv4 address
        /// or a bracketed IPv6 address, a port of 1...65535, no credentials, query or fragment, and
        /// a path of printable URL characters ending with `/`.
        public init?(base: String) {
            let bytes = Array(base.utf8)
            guard bytes.count > 7,
                  bytes[0..<7].map({ (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }).elementsEqual("http://".utf8) else { return nil }
            let rest = bytes[7...]
            guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return nil }
            let authority = rest[rest.startIndex..<slash]
            let path = rest[slash...]
            guard !authority.isEmpty, path.last == UInt8(ascii: "/"),
                  path.allSatisfy(Endpoint.isPathByte) else { return nil }
            var host: ArraySlice<UInt8>
            var port: ArraySlice<UInt8> = []
            let bracketed = authority.first == UInt8(ascii: "[")
            if bracketed {
                guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
                host = authority[(authority.startIndex + 1)..<close]
                guard !host.isEmpty, host.allSatisfy({ Endpoint.isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
                else { return nil }
                let after = authority[(close + 1)...]
                if !after.isEmpty {
                    guard after.first == UInt8(ascii: ":") else { return nil }
                    port = after.dropFirst()
                }
            } else {
                if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
                    host = authority[authority.startIndex..<colon]
                    port = authority[(colon + 1)...]
                } else {
                    host = authority
                }
                guard (1...253).contains(host.count), host.allSatisfy({ Endpoint.isHostByte($0) }),
                      host.first != UInt8(ascii: "-"), host.first != UInt8(ascii: ".") else { return nil }
            }
            var number = 80   // an empty port (`host:`) is the default, as in RFC 3986
            if !port.isEmpty {
                guard port.count <= 5, port.allSatisfy({ (0x30...0x39).contains($0) }),
                      let n = Int(String(decoding: port, as: UTF8.self)), (1...65535).contains(n) else { return nil }
                number = n
            }
            let name = String(decoding: host, as: UTF8.self)
            self.host = name
            self.port = String(number)
            self.authority = (bracketed ? "[\(name)]" : name) + (number == 80 ? "" : ":\(number)")
            self.basePath = String(decoding: path, as: UTF8.self)
        }

        private static func isHexDigit(_ c: UInt8) -> Bool {
            (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
        }

        /// Letters, digits, `-`, `.`: a DNS name or an IPv4 address.
        private static func isHostByte(_ c: UInt8) -> Bool {
            (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
                || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
        }

        /// RFC 3986 `pchar` and `/` (an already-encoded path: `%` is allowed as is).
        static func isPathByte(_ c: UInt8) -> Bool {
            (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
                || "-._~!$&'()*+,;=:@%/".utf8.contains(c)
        }
    }

    /// Why a request got no response.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public enum Kind: Sendable, Equatable {
            /// `busy`: `get(ifIdle: true)` found every one of `maxConcurrent` requests running.
            case resolve, refused, timeout, connectionLost, tooLarge, cancelled, malformed, busy, other
        }
        public var kind: Kind
        /// What happened, in words (never the server's own bytes).
        public var message: String
        /// `.tooLarge` only: the status of the answer when its head was read whole, else 0 (an error
        /// page over the cap still says what it is).
        public var status = 0
        public var description: String { message }
    }

    public let endpoint: Endpoint
    public var userAgent: String
    public var connectTimeout: Double
    public var timeout: Double
    /// Requests at once, shared by every copy of this client (each holds a connection, a thread and
    /// up to four descriptors); nil: no bound.
    let slots: AsyncGate?

    /// `connectTimeout` and `timeout` in seconds (at least 1 ms each); `userAgent` defaults to
    /// `imgfetch/VERSION`, as libcurl's requests. `maxConcurrent`: requests at once (more wait for
    /// one to end); 0: no bound.
    public init(endpoint: Endpoint, userAgent: String = "imgfetch/\(ImageFetchVersion.string)",
                connectTimeout: Double = 5, timeout: Double = 30, maxConcurrent: Int = 0) {
        self.slots = maxConcurrent > 0 ? AsyncGate(limit: maxConcurrent) : nil
        self.endpoint = endpoint
        self.userAgent = userAgent
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }

    /// GETs `basePath + name` (`name`: path characters only, no leading `/`). The response of any
    /// status is returned; a body over `maxBodyBytes` is `.tooLarge`. `limit`, when given, may
    /// lower that cap while the request runs: the answer then ends at its head when it announces
    /// more, or as soon as more has come. `ifIdle`: fail with `.busy` at once rather than wait when
    /// `maxConcurrent` requests are running.
    public func get(_ name: String, maxBodyBytes: Int, limit: BodyLimit? = nil,
                    ifIdle: Bool = false) async throws(Failure) -> DirectHTTPResponse {
        guard !name.hasPrefix("/"), name.utf8.allSatisfy(Endpoint.isPathByte),
              HTTPHeaders.validValue(userAgent) != nil else {
            throw Failure(kind: .other, message: "refused request")
        }
        if let slots {
            if ifIdle {
                guard slots.tryAcquire() else { throw Failure(kind: .busy, message: "every connection is taken") }
            } else {
                await slots.acquire()
            }
        }
        defer { slots?.release() }
        if Task.isCancelled { throw Failure(kind: .cancelled, message: "cancelled") }
        let request = "GET \(endpoint.basePath)\(name) HTTP/1.1\r\nHost: \(endpoint.authority)\r\n"
            + "User-Agent: \(userAgent)\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        let maxBody = max(0, maxBodyBytes)
        // Any cap is taken (Int.max included): the room for the head saturates instead of wrapping.
        let (maxResponse, wrapped) = maxBody.addingReportingOverflow(DirectHTTPResponse.maxHeadBytes)
        let (code, bytes, message) = await exchange(Array(request.utf8), maxResponse: wrapped ? Int.max : maxResponse, limit: limit)
        switch Int(code) {
        case Int(IFN_OK):
            do throws(DirectHTTPError) {
                return try DirectHTTPResponse.parse(bytes, maxBodyBytes: maxBody)
            } catch {
                guard error == .tooLarge else { throw Failure(kind: .malformed, message: error.description) }
                throw Failure(kind: .tooLarge, message: error.description, status: DirectHTTPResponse.status(ofHead: bytes) ?? 0)
            }
        case Int(IFN_E_RESOLVE): throw Failure(kind: .resolve, message: message)
        case Int(IFN_E_CONNECT): throw Failure(kind: .refused, message: message)
        case Int(IFN_E_TIMEOUT): throw Failure(kind: .timeout, message: message)
        case Int(IFN_E_IO):
            // A server that answers and closes without reading the request resets the connection
            // after its answer: a complete answer (its length or chunks say where it ends) stands,
            // as through libcurl; one that ends with the connection may be cut short.
            if let response = try? DirectHTTPResponse.parse(bytes, maxBodyBytes: maxBody), Self.isFramed(response) {
                return response
            }
            throw Failure(kind: .connectionLost, message: message)
        case Int(IFN_E_TOO_LARGE):
            throw Failure(kind: .tooLarge, message: "response too large", status: DirectHTTPResponse.status(ofHead: bytes) ?? 0)
        case Int(IFN_E_CANCELLED): throw Failure(kind: .cancelled, message: "cancelled")
        default: throw Failure(kind: .other, message: message.isEmpty ? "request failed" : message)
        }
    }

    /// Whether the end of `response`'s body was told, not inferred from the end of the connection.
    private static func isFramed(_ response: DirectHTTPResponse) -> Bool {
        response.status == 204 || response.status == 304
            || response.headers["Content-Length"] != nil || response.headers["Transfer-Encoding"] != nil
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 1 }
        return Int(min(seconds * 1000, 86_400_000).rounded(.up))
    }

    /// Runs one exchange on its own thread; the result code, the bytes the server sent, a message.
    private func exchange(_ request: [UInt8], maxResponse: Int, limit: BodyLimit?) async -> (Int32, [UInt8], String) {
        let exchange = Exchange(limit: limit)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                exchange.start(host: endpoint.host, port: endpoint.port, request: request, maxResponse: maxResponse,
                               connectTimeoutMS: Self.milliseconds(connectTimeout), timeoutMS: Self.milliseconds(timeout),
                               continuation: continuation)
            }
        } onCancel: {
            exchange.cancel()
        }
        return exchange.finish()
    }
}

/// One exchange's handle and its waiter, shared by the task, its cancellation handler and the
/// exchange thread (through the retained context given to `ifn_exchange_start`).
private final class Exchange: Sendable {
    private struct State {
        var handle: HandleBox?
        var cancelled = false
        /// The thread has called back: the exchange is over.
        var ended = false
        var startFailed = false
        /// `errno` when the exchange could not start (EMFILE is told apart).
        var startError: Int32 = 0
        var continuation: CheckedContinuation<Void, Never>?
    }
    private let state = Lock(State())
    private let limit: BodyLimit?

    init(limit: BodyLimit?) { self.limit = limit }

    /// The waiter is resumed once the exchange has ended AND its handle is stored (the thread may
    /// end before `ifn_exchange_start` has returned), or at once when it could not start.
    func start(host: String, port: String, request: [UInt8], maxResponse: Int, connectTimeoutMS: Int, timeoutMS: Int,
               continuation: CheckedContinuation<Void, Never>) {
        state.withLock { $0.continuation = continuation }
        let context = Unmanaged.passRetained(self).toOpaque()
        let (handle, startError) = request.withUnsafeBytes { raw in
            let started = ifn_exchange_start(host, port, raw.baseAddress, raw.count, maxResponse, connectTimeoutMS, timeoutMS, { context in
                guard let context else { return }
                Unmanaged<Exchange>.fromOpaque(context).takeRetainedValue().ended()
            }, context)
            return (started, started == nil ? errno : 0)
        }
        let resume = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if let handle {
                let box = HandleBox(handle)
                s.handle = box
                limit?.attach(box)
                // A task cancelled before the exchange started. Under the lock: once it is released,
                // `ended` may resume the waiter, whose `finish` frees the handle.
                if s.cancelled && !s.ended { ifn_exchange_cancel(handle) }
            } else {
                s.startFailed = true
                s.startError = startError
            }
            let resume = (s.ended || s.startFailed) ? s.continuation : nil
            if resume != nil { s.continuation = nil }
            return resume
        }
        if handle == nil { Unmanaged<Exchange>.fromOpaque(context).release() }
        resume?.resume()
    }

    /// Called once, on the exchange's thread, when it has ended.
    private func ended() {
        let resume = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.ended = true
            guard s.handle != nil, let c = s.continuation else { return nil }
            s.continuation = nil
            return c
        }
        resume?.resume()
    }

    func cancel() {
        state.withLock { s in
            s.cancelled = true
            if let handle = s.handle, !s.ended { ifn_exchange_cancel(handle.pointer) }
        }
    }

    /// After the exchange has ended: its result; the handle is released.
    func finish() -> (Int32, [UInt8], String) {
        let (handle, startFailed, startError) = state.withLock { s in
            defer { s.handle = nil }
            return (s.handle, s.startFailed, s.startError)
        }
        guard let handle else {
            if startFailed && (startError == EMFILE || startError == ENFILE) {
                return (Int32(IFN_E_NOFILE), [], "too many open files")
            }
            return (Int32(IFN_E_NOMEM), [], startFailed ? "could not start the request thread" : "no request")
        }
        // Before the release: the limit never reaches a freed handle.
        limit?.detach(handle)
        var bytes: UnsafePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 160)
        let code = ifn_exchange_result(handle.pointer, &bytes, &length, &message, message.count)
        // Of an answer over the cap only its heads are read (for the status), not the cap's worth.
        if code == Int32(IFN_E_TOO_LARGE) { length = min(length, (DirectHTTPResponse.maxInterim + 1) * DirectHTTPResponse.maxHeadBytes) }
        let body = bytes.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
        ifn_exchange_release(handle.pointer)
        return (code, body, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}

/// The C handle, moved between threads under `Exchange`'s lock only.
// @unchecked: an opaque pointer is not Sendable; every use of it is under the Mutex of the one
// `Exchange` that owns it, and ifn_exchange_cancel/_result/_release are safe from any thread.
private final class HandleBox: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

/// A body cap that may be lowered while requests run (`DirectHTTPClient.get(_:maxBodyBytes:limit:)`):
/// the remote tier asks for an image before its metadata has said how large it is, and lowers the
/// cap to that size when it knows it. Never raised.
public final class BodyLimit: Sendable {
    private struct State {
        var bytes: Int
        var running: [ObjectIdentifier: HandleBox] = [:]
    }
    private let state: Lock<State>

    public init(_ bytes: Int64) { state = Lock(State(bytes: Int(clamping: max(0, bytes)))) }

    public var bytes: Int64 { Int64(state.withLock { $0.bytes }) }

    /// Lowers the cap to `bytes` (a larger value changes nothing), for running requests too.
    public func lower(to bytes: Int64) {
        state.withLock { s in
            let lowered = Int(clamping: max(0, bytes))
            guard lowered < s.bytes else { return }
            s.bytes = lowered
            for handle in s.running.values { ifn_exchange_limit_body(handle.pointer, lowered) }
        }
    }

    /// A started exchange: held to the current cap, and to every lowering until `detach`.
    fileprivate func attach(_ handle: HandleBox) {
        state.withLock { s in
            s.running[ObjectIdentifier(handle)] = handle
            ifn_exchange_limit_body(handle.pointer, s.bytes)
        }
    }

    fileprivate func detach(_ handle: HandleBox) {
        _ = state.withLock { $0.running.removeValue(forKey: ObjectIdentifier(handle)) }
    }
}
