import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one run of a child process produced.
struct RunResult: CustomStringConvertible {
    var status: Int32
    var stdout: Data
    var stderr: String
    /// Wall time of the run, in seconds.
    var elapsed: TimeInterval
    /// The process was killed because it outlived the timeout.
    var timedOut: Bool
    var arguments: [String]

    /// stdout as text (lossy), for messages and for text output.
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }

    /// stdout parsed as NDJSON: every line that is a JSON object, in order.
    var json: [[String: Any]] {
        stdoutText.split(whereSeparator: \.isNewline).compactMap { line in
            guard let data = line.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) else { return nil }
            return object as? [String: Any]
        }
    }

    /// The non-empty lines written to stderr.
    var stderrLines: [String] {
        stderr.split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    var description: String {
        let out = stdout.count > 600 || stdout.contains(0)
            ? "<\(stdout.count) bytes>" : stdoutText
        return "imgfetch \(arguments.joined(separator: " "))\n  exit: \(status)\(timedOut ? " (killed after timeout)" : "") in \(String(format: "%.2f", elapsed)) s\n  stdout: \(out)\n  stderr: \(stderr)"
    }
}

/// Thread-safe accumulator for a pipe's bytes.
private final class DataBox: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ d: Data) { lock.lock(); data = d; lock.unlock() }
    func get() -> Data { lock.lock(); defer { lock.unlock() }; return data }
}

enum ProcessRunner {
    /// Runs `executable` with `arguments`, feeding `stdin` (or /dev/null), reading stdout and
    /// stderr concurrently (no pipe deadlock with large outputs), and killing it after `timeout`.
    static func run(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String],
        stdin: Data? = nil,
        currentDirectory: URL? = nil,
        timeout: TimeInterval = 30
    ) -> RunResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }

        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        let inPipe: Pipe? = stdin == nil ? nil : Pipe()
        process.standardInput = inPipe ?? FileHandle.nullDevice

        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }

        let start = Date()
        do {
            try process.run()
        } catch {
            return RunResult(status: -1, stdout: Data(), stderr: "could not start \(executable.path): \(error)",
                             elapsed: 0, timedOut: false, arguments: arguments)
        }

        let outBox = DataBox(), errBox = DataBox()
        let readers = DispatchGroup()
        let outHandle = outPipe.fileHandleForReading, errHandle = errPipe.fileHandleForReading
        DispatchQueue.global().async(group: readers) { outBox.set(outHandle.readDataToEndOfFile()) }
        DispatchQueue.global().async(group: readers) { errBox.set(errHandle.readDataToEndOfFile()) }
        if let inPipe, let stdin {
            let writer = inPipe.fileHandleForWriting
            DispatchQueue.global().async {
                // The child may exit without reading everything: ignore SIGPIPE-style failures.
                try? writer.write(contentsOf: stdin)
                try? writer.close()
            }
        }

        var timedOut = false
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            process.terminate()
            if exited.wait(timeout: .now() + 2) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                exited.wait()
            }
        }
        process.waitUntilExit()
        let elapsed = Date().timeIntervalSince(start)
        // A grandchild could keep the pipes open; do not wait for it forever.
        _ = readers.wait(timeout: .now() + 5)
        return RunResult(status: process.terminationStatus,
                         stdout: outBox.get(),
                         stderr: String(decoding: errBox.get(), as: UTF8.self),
                         elapsed: elapsed, timedOut: timedOut, arguments: arguments)
    }
}

/// Runs the built `imgfetch`.
enum Imgfetch {
    struct NotBuilt: Error, CustomStringConvertible {
        var description: String {
            "the imgfetch executable was not found next to the test bundle (build it with `swift build --build-tests`, or set IMGFETCH_E2E_BINARY). Searched: \(E2EPaths.searched.joined(separator: ", "))"
        }
    }

    /// The environment every run starts from: the test process's, without anything that could
    /// redirect imgfetch (its own variables, XDG cache, proxies), with HOME set to `home`.
    static func baseEnvironment(home: URL) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for key in env.keys {
            let lower = key.lowercased()
            if key.hasPrefix("IMGFETCH_") || key == "XDG_CACHE_HOME" || lower.hasSuffix("_proxy") {
                env.removeValue(forKey: key)
            }
        }
        env["HOME"] = home.path
        env["NO_PROXY"] = "127.0.0.1,localhost"
        env["no_proxy"] = "127.0.0.1,localhost"
        return env
    }

    /// Runs `imgfetch args`. `env` entries are added to (and override) the base environment.
    static func run(
        _ args: [String],
        env: [String: String] = [:],
        home: URL,
        stdin: Data? = nil,
        currentDirectory: URL? = nil,
        timeout: TimeInterval = 30
    ) throws -> RunResult {
        guard let binary = E2EPaths.binary else { throw NotBuilt() }
        var environment = baseEnvironment(home: home)
        environment.merge(env) { _, new in new }
        return ProcessRunner.run(binary, args, environment: environment, stdin: stdin,
                                 currentDirectory: currentDirectory, timeout: timeout)
    }
}
