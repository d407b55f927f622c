import Foundation
import XCTest

/// A test CA and a certificate for 127.0.0.1 signed by it, made with the `openssl` tool in `dir`.
struct TestCertificates {
    let caCertificate: String
    let serverCertificate: String
    let serverKey: String

    init(in dir: URL) throws {
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        caCertificate = path("ca.pem")
        serverCertificate = path("server.pem")
        serverKey = path("server.key")
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
            .write(toFile: path("ext.cnf"), atomically: true, encoding: .utf8)
        try TestCertificates.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca.key"),
                                      "-out", caCertificate, "-days", "2", "-subj", "/CN=imgfetch test CA"])
        try TestCertificates.openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", serverKey,
                                      "-out", path("server.csr"), "-subj", "/CN=127.0.0.1"])
        try TestCertificates.openssl(["x509", "-req", "-in", path("server.csr"), "-CA", caCertificate, "-CAkey", path("ca.key"),
                                      "-CAcreateserial", "-out", serverCertificate, "-days", "2", "-extfile", path("ext.cnf")])
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    static func openssl(_ args: [String]) throws {
        let candidates = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/bin/openssl"]
        guard let tool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("the openssl tool is not installed")
        }
        let r = ProcessRunner.run(URL(fileURLWithPath: tool), args, environment: ProcessInfo.processInfo.environment,
                                  stdin: nil, currentDirectory: nil, timeout: 60)
        guard r.status == 0 else { throw Failure(description: "openssl \(args.joined(separator: " ")) failed:\n\(r.stderr)") }
    }
}

/// Tests/Support/connect_proxy.py on 127.0.0.1: a forward proxy (CONNECT and absolute-form GET)
/// that logs every request it forwarded.
final class TestProxy {
    let logFile: URL
    private let script: PortReportingScript

    init(logFile: URL) throws {
        self.logFile = logFile
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        script = try PortReportingScript(E2EPaths.proxyScript, [logFile.path])
    }

    var port: Int { script.port }

    var url: String { "http://127.0.0.1:\(port)" }

    /// The requests it forwarded, one per line ("CONNECT host:port", "GET http://...").
    var forwarded: [String] {
        (try? String(contentsOf: logFile, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }

    func stop() { script.stop() }
}
