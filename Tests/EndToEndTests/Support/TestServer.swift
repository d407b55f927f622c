import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The Python test HTTP server (`Tests/Support/e2e_server.py`) on 127.0.0.1.
final class TestServer {
    struct StartError: Error, CustomStringConvertible { var description: String }

    struct LogEntry {
        var path: String
        var method: String
        /// Header names are lower-cased.
        var headers: [String: String]
        /// Arrival time, seconds since the epoch.
        var t: Double
        /// The response code, once sent.
        var status: Int?
        /// The body bytes the server wrote (at most), once it started writing.
        var sent: Int? = nil
    }

    struct Stats {
        var total: Int
        var paths: [String: Int]
        var log: [LogEntry]
    }

    let port: Int
    private let process: Process
    private let stdinPipe: Pipe

    /// "http", or "https" when started with a certificate.
    let scheme: String

    /// `tls`: PEM certificate and key files to serve https with.
    init(fixtures: URL = E2EPaths.fixturesDir, tls: (certificate: String, key: String)? = nil) throws {
        guard let python = TestServer.findPython() else {
            throw StartError(description: "python3 was not found in PATH; the end-to-end tests need it for their HTTP server")
        }
        let process = Process()
        process.executableURL = python
        process.arguments = [E2EPaths.serverScript.path, fixtures.path] + (tls.map { ["--tls", $0.certificate, $0.key] } ?? [])
        scheme = tls == nil ? "http" : "https"
        let out = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardInput = input  // the server exits when this pipe closes
        process.standardError = FileHandle.standardError
        try process.run()

        // Read the first line (the port), with a deadline.
        let handle = out.fileHandleForReading
        let box = LineBox()
        let got = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var buffer = Data()
            while !buffer.contains(UInt8(ascii: "\n")) {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
            }
            box.set(String(decoding: buffer, as: UTF8.self))
            got.signal()
        }
        // 30 s: a python start on two loaded cores (load 11-13 beside a build) took more than 10.
        guard got.wait(timeout: .now() + 30) == .success,
              let line = box.get().split(whereSeparator: \.isNewline).first,
              let port = Int(line.trimmingCharacters(in: .whitespaces)) else {
            process.terminate()
            throw StartError(description: "the test server did not report its port (\(E2EPaths.serverScript.path))")
        }
        self.port = port
        self.process = process
        self.stdinPipe = input
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT` (https with TLS) + `path` (which starts with `/`).
    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    func stop() {
        guard process.isRunning else { return }
        try? stdinPipe.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    func stats() throws -> Stats {
        let (status, body) = try TestServer.rawGet(port: port, path: "/__stats")
        guard status == 200,
              let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw StartError(description: "GET /__stats answered \(status)")
        }
        let paths = (object["paths"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.intValue }
        let log = (object["log"] as? [[String: Any]] ?? []).map {
            LogEntry(path: $0["path"] as? String ?? "",
                     method: $0["method"] as? String ?? "",
                     headers: ($0["headers"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String },
                     t: ($0["t"] as? NSNumber)?.doubleValue ?? -1,
                     status: ($0["status"] as? NSNumber)?.intValue,
                     sent: ($0["sent"] as? NSNumber)?.intValue)
        }
        return Stats(total: (object["total"] as? NSNumber)?.intValue ?? -1, paths: paths, log: log)
    }

    /// Requests made so far for exactly `path` (path and query, as the client sent them).
    func requestCount(_ path: String) throws -> Int {
        try stats().paths[path] ?? 0
    }

    /// Every request so far, in arrival order.
    func requestLog() throws -> [LogEntry] { try stats().log }

    /// Requests made so far, all paths together.
    func totalRequests() throws -> Int { try stats().total }

    /// The logged requests for exactly `path`, oldest first.
    func requests(_ path: String) throws -> [LogEntry] {
        try stats().log.filter { $0.path == path }
    }

    func reset() throws {
        _ = try TestServer.rawGet(port: port, path: "/__reset")
    }

    // MARK: - plumbing

    private static func findPython() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) {
                return URL(fileURLWithPath: candidate)
            }
        }
        return nil
    }

    /// A minimal HTTP/1.0 GET over a plain socket: no proxy settings, no FoundationNetworking.
    static func rawGet(port: Int, path: String) throws -> (status: Int, body: Data) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw StartError(description: "socket() failed: \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw StartError(description: "connect to 127.0.0.1:\(port) failed: \(errno)") }

        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw StartError(description: "send failed: \(errno)") }
            sent += n
        }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { throw StartError(description: "recv failed: \(errno)") }
            if n == 0 { break }
            response.append(contentsOf: buffer[0..<n])
        }
        guard let separator = response.range(of: Data("\r\n\r\n".utf8)) else {
            throw StartError(description: "malformed HTTP response from the test server")
        }
        let head = String(decoding: response[..<separator.lowerBound], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first ?? ""
        let code = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (code, Data(response[separator.upperBound...]))
    }
}

private final class LineBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value = ""
    func set(_ v: String) { lock.lock(); value = v; lock.unlock() }
    func get() -> String { lock.lock(); defer { lock.unlock() }; return value }
}
