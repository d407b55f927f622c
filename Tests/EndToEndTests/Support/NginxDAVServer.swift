import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// nginx (Debian's nginx-light has the WebDAV module) on 127.0.0.1 as the remote cache tier's HTTP
/// store: `PUT` and `DELETE` (`dav_methods`, `create_full_put_path on`), `GET`/`HEAD` of the files,
/// and JSON directory listings (`autoindex on; autoindex_format json;`) for `cache pull`.
///
/// Everything (configuration, document root, pid, logs, client_body_temp and the other temp
/// paths) lives in a fresh temporary directory, removed by `stop()`. Run as root, nginx's workers
/// are `nobody`: the directories they write are made writable by all.
/// Every request is logged as `METHOD URI STATUS` (`requests()`).
final class NginxDAVServer {
    enum Mode {
        /// A working store.
        case normal
        /// Every request answered with this status (`return 500;`).
        case failing(Int)
        /// Every request hangs: nginx passes it to a socket that never answers (the client's
        /// timeout decides).
        case slow
    }

    struct StartError: Error, CustomStringConvertible { var description: String }

    let port: Int
    /// A plain http server of stub_status (request counts), unlogged, for `requests()`.
    private let statusPort: Int
    private var statusAsked = 0
    private let mode: Mode
    /// `http`, or `https` with `tls`.
    let scheme: String
    /// The temporary directory holding everything.
    let directory: URL
    /// The document root: object `p/x` of `url("/p/x")` is `root/p/x`.
    let root: URL
    private let process: Process
    private var hangingSocket: Int32 = -1

    /// `tls`: serve https with this certificate and key (PEM files) instead of http.
    /// `workerConnections`: nginx's `worker_connections` (a test with hundreds of connections at once).
    init(mode: Mode = .normal, tls: (certificate: String, key: String)? = nil, workerConnections: Int = 512) throws {
        guard let nginx = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw StartError(description: "nginx was not found (Debian: apt-get install nginx-light; scripts/install-deps.sh)")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imgfetch-nginx-\(UUID().uuidString)")
        let root = dir.appendingPathComponent("root")
        let fm = FileManager.default
        for sub in ["root", "logs", "client_body_temp", "proxy_temp", "fastcgi_temp", "uwsgi_temp", "scgi_temp"] {
            try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
            chmod(dir.appendingPathComponent(sub).path, 0o777)
        }
        chmod(dir.path, 0o755)
        var hanging: Int32 = -1
        var location = """
                    dav_methods PUT DELETE;
                    create_full_put_path on;
                    dav_access user:rw group:rw all:r;
                    autoindex on;
                    autoindex_format json;
            """
        switch mode {
        case .normal: break
        case .failing(let status): location = "            return \(status);"
        case .slow:
            let socket = try LocalPorts.listeningSocket()
            hanging = socket.fd
            location = """
                        proxy_pass http://127.0.0.1:\(socket.port);
                        proxy_read_timeout 300s;
                        proxy_send_timeout 300s;
                """
        }
        var lastError = ""
        for _ in 0..<5 {
            let port = try LocalPorts.free(), statusPort = try LocalPorts.free()
            let d = dir.path
            let user = getuid() == 0 ? "user nobody nogroup;" : ""
            let config = """
                daemon off;
                master_process on;
                worker_processes 1;
                \(user)
                pid \(d)/logs/nginx.pid;
                error_log \(d)/logs/error.log warn;
                events { worker_connections \(workerConnections); }
                http {
                    log_format methods '$request_method $uri $status';
                    access_log \(d)/logs/access.log methods;
                    client_body_temp_path \(d)/client_body_temp;
                    proxy_temp_path \(d)/proxy_temp;
                    fastcgi_temp_path \(d)/fastcgi_temp;
                    uwsgi_temp_path \(d)/uwsgi_temp;
                    scgi_temp_path \(d)/scgi_temp;
                    client_max_body_size 0;
                    server {
                        listen 127.0.0.1:\(port)\(tls == nil ? "" : " ssl");
                        \(tls.map { "ssl_certificate \($0.certificate); ssl_certificate_key \($0.key);" } ?? "")
                        root \(root.path);
                        location / {
                \(location)
                        }
                    }
                    server {
                        listen 127.0.0.1:\(statusPort);
                        access_log off;
                        location / { stub_status; }
                    }
                }

                """
            let configFile = dir.appendingPathComponent("nginx.conf")
            try config.write(to: configFile, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: nginx)
            process.arguments = ["-p", d, "-c", configFile.path, "-e", "\(d)/logs/startup.log"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.standardError
            try process.run()
            if LocalPorts.waitListening(port, process: process, seconds: 10) {
                self.port = port
                self.statusPort = statusPort
                self.mode = mode
                self.scheme = tls == nil ? "http" : "https"
                self.directory = dir
                self.root = root
                self.process = process
                self.hangingSocket = hanging
                return
            }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            lastError = (try? String(contentsOfFile: "\(d)/logs/startup.log", encoding: .utf8)) ?? ""
        }
        if hanging >= 0 { close(hanging) }
        try? fm.removeItem(at: dir)
        throw StartError(description: "nginx did not start: \(lastError)")
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT` (or `https://`) + `path` (which starts with `/`).
    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    /// Stops nginx (SIGTERM, then waits) and removes the temporary directory.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        if hangingSocket >= 0 {
            close(hangingSocket)
            hangingSocket = -1
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every request answered so far, `(method, uri, status)`, oldest first. nginx logs a request
    /// after answering it, so a client may be done before its last request is in the log: this
    /// first waits (up to 10 s) until the log holds as many requests as nginx has received
    /// (stub_status's count, less its own; a hanging store's are never done: not waited for).
    func requests() -> [(method: String, uri: String, status: Int)] {
        if case .slow = mode {} else {
            _ = Waiting.until(timeout: 10) { logLines().count >= received() ?? 0 }
        }
        return logLines().compactMap { line in
            let f = line.split(separator: " ")
            guard f.count == 3, let status = Int(f[2]) else { return nil }
            return (String(f[0]), String(f[1]), status)
        }
    }

    private func logLines() -> [Substring] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("logs/access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n")
    }

    /// The requests nginx has received but the status requests (stub_status: "Active connections:
    /// N", "server accepts handled requests", then the three counts), or nil when it did not answer.
    private func received() -> Int? {
        guard let r = try? TestServer.rawGet(port: statusPort, path: "/") else { return nil }
        statusAsked += 1
        guard r.status == 200 else { return nil }
        let lines = String(decoding: r.body, as: UTF8.self).split(separator: "\n")
        guard lines.count > 2, let total = lines[2].split(separator: " ").compactMap({ Int($0) }).last else { return nil }
        return total - statusAsked
    }

    /// The stored file at `path` under the document root (`"p/x.meta"`), or nil.
    func storedFile(_ path: String) -> Data? {
        try? Data(contentsOf: root.appendingPathComponent(path))
    }
}
