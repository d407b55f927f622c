import Foundation

/// A Python test server from Tests/Support that binds 127.0.0.1, prints its port as the first line
/// of stdout and exits when its stdin closes (connect_proxy.py, raw_http_server.py).
final class PortReportingScript {
    let port: Int
    private let process = Process()
    private let input = Pipe()

    struct StartError: Error, CustomStringConvertible { var description: String }

    init(_ script: URL, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = input
        try process.run()
        let line = out.fileHandleForReading.availableData   // the port line comes first
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw StartError(description: "\(script.lastPathComponent) did not report its port")
        }
        self.port = port
    }

    func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}
