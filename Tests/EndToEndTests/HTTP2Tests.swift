import Foundation
import XCTest

/// https over HTTP/2 against nginx (`ssl http2`) on 127.0.0.1 with the test CA: a prefetch
/// negotiates HTTP/2 and multiplexes its transfers over one connection (nginx's log says so).
final class HTTP2Tests: E2ETestCase {
    private var nginx: Process?

    override func tearDownWithError() throws {
        if let nginx, nginx.isRunning {
            nginx.terminate()
            nginx.waitUntilExit()
        }
        try super.tearDownWithError()
    }

    private func freePort() throws -> Int {
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"),
                                  ["python3", "-c", "import socket;s=socket.socket();s.bind(('127.0.0.1',0));print(s.getsockname()[1])"],
                                  environment: ProcessInfo.processInfo.environment)
        return try XCTUnwrap(Int(r.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// Starts nginx serving the fixtures over https + HTTP/2; its access log at `log`.
    private func startNginx(certs: TestCertificates, dir: URL, log: URL) throws -> Int {
        guard let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("nginx is not installed")
        }
        let port = try freePort()
        let conf = """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(dir.path)/nginx.pid;
        error_log \(dir.path)/error.log warn;
        events { worker_connections 64; }
        http {
            access_log off;
            client_body_temp_path \(dir.path)/body;
            proxy_temp_path \(dir.path)/proxy;
            fastcgi_temp_path \(dir.path)/fastcgi;
            uwsgi_temp_path \(dir.path)/uwsgi;
            scgi_temp_path \(dir.path)/scgi;
            log_format h2 '$server_protocol $connection $request_uri $status';
            server {
                listen 127.0.0.1:\(port) ssl http2;
                ssl_certificate \(certs.serverCertificate);
                ssl_certificate_key \(certs.serverKey);
                access_log \(log.path) h2;
                root \(E2EPaths.fixturesDir.path);
                location /img/ { alias \(E2EPaths.fixturesDir.path)/; }
            }
        }
        """
        let confFile = dir.appendingPathComponent("nginx.conf")
        try conf.write(to: confFile, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-c", confFile.path, "-p", dir.path, "-e", dir.appendingPathComponent("error.log").path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        nginx = process
        // Ready when it accepts: poll up to 5 s.
        for _ in 0..<50 {
            if (try? TestServer.rawGet(port: port, path: "/")) != nil { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        guard process.isRunning else { throw XCTSkip("nginx did not start: \((try? String(contentsOf: dir.appendingPathComponent("error.log"), encoding: .utf8)) ?? "")") }
        return port
    }

    func testPrefetchNegotiatesHTTP2AndMultiplexes() throws {
        let dir = root.appendingPathComponent("nginx", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let certs = try TestCertificates(in: dir)
        let log = dir.appendingPathComponent("access.log")
        let port = try startNginx(certs: certs, dir: dir, log: log)
        let names = ["photo.jpg", "portrait.jpg", "progressive.jpg", "large.jpg", "small.webp", "icc.jpg"]
        let list = try writeList(names.map { "https://127.0.0.1:\(port)/img/\($0)" })
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--cacert", certs.caCertificate, "-j", "6", list.path])
        assertExit(r, 0)
        // (The readiness probe's plain-HTTP request is in the log too: only /img/ lines count.)
        let lines = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map { $0.split(separator: " ") }
            .filter { $0.count == 4 && $0[2].hasPrefix("/img/") }
        XCTAssertEqual(lines.count, names.count, "\(lines)")
        XCTAssertTrue(lines.allSatisfy { $0.first == "HTTP/2.0" }, "HTTP/2 negotiated: \(lines)")
        XCTAssertEqual(Set(lines.map { $0.count > 1 ? $0[1] : "" }).count, 1, "one connection carries every transfer: \(lines)")
    }
}
