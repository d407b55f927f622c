import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// moto's server mode (`python3 -m moto.server`, from PyPI's `moto[server]`; scripts/install-deps.sh)
/// on 127.0.0.1 as an S3-compatible store that enforces SigV4 authentication.
///
/// moto accepts any signature unless started with `INITIAL_NO_AUTH_ACTION_COUNT`: it is started
/// with 3, and Tests/Support/moto_setup.py spends exactly those 3 unauthenticated actions on an IAM
/// user, its access key and a policy allowing S3; from then on every request must be signed with
/// that key (a wrong secret is refused with 403 SignatureDoesNotMatch). The set-up then creates
/// `bucket`, signed.
final class MotoS3Server {
    struct StartError: Error, CustomStringConvertible { var description: String }

    let port: Int
    let bucket: String
    let accessKeyID: String
    let secretAccessKey: String
    private let process: Process
    private let directory: URL

    /// `http://127.0.0.1:PORT`: the `--s3-endpoint`.
    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The environment a signed client needs (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`).
    var environment: [String: String] {
        ["AWS_ACCESS_KEY_ID": accessKeyID, "AWS_SECRET_ACCESS_KEY": secretAccessKey, "AWS_REGION": "us-east-1"]
    }

    init(bucket: String = "imgfetch-cache") throws {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("imgfetch-moto-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        let setupScript = E2EPaths.testsDir.appendingPathComponent("Support/moto_setup.py")
        var lastError = ""
        for _ in 0..<3 {
            let port = try LocalPorts.free()
            let log = dir.appendingPathComponent("moto-\(port).log")
            _ = fm.createFile(atPath: log.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", String(port)]
            var env = ProcessInfo.processInfo.environment
            env["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
            for name in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"] { env[name] = nil }
            process.environment = env
            let logHandle = try FileHandle(forWritingTo: log)
            process.standardOutput = logHandle
            process.standardError = logHandle
            try process.run()
            try? logHandle.close()
            guard LocalPorts.waitListening(port, process: process, seconds: 30) else {
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
                lastError = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                continue
            }
            // The set-up: IAM user, key, policy (unauthenticated), then the bucket (signed).
            let setup = Process()
            setup.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            setup.arguments = ["python3", setupScript.path, "http://127.0.0.1:\(port)", bucket]
            setup.environment = env
            let out = Pipe(), err = Pipe()
            setup.standardOutput = out
            setup.standardError = err
            try setup.run()
            let output = out.fileHandleForReading.readDataToEndOfFile()
            let errors = err.fileHandleForReading.readDataToEndOfFile()
            setup.waitUntilExit()
            let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
            guard setup.terminationStatus == 0, lines.count == 2 else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                try? fm.removeItem(at: dir)
                throw StartError(description: "moto_setup.py failed: \(String(decoding: errors, as: UTF8.self))")
            }
            self.port = port
            self.bucket = bucket
            self.accessKeyID = lines[0]
            self.secretAccessKey = lines[1]
            self.process = process
            self.directory = dir
            return
        }
        try? fm.removeItem(at: dir)
        throw StartError(description: "moto did not start (pip install 'moto[server]'; scripts/install-deps.sh): \(lastError.suffix(2000))")
    }

    deinit { stop() }

    /// Kills moto (SIGKILL: its server ignores SIGTERM; its state is in memory only) and waits.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
