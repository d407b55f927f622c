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
    /// `status` is the number of the signal that ended the process (a crash, or the timeout).
    var signaled: Bool = false
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
        return "imgfetch \(arguments.joined(separator: " "))\n  \(signaled ? "killed by signal" : "exit"): \(status)\(timedOut ? " (killed after timeout)" : "") in \(String(format: "%.2f", elapsed)) s\n  stdout: \(out)\n  stderr: \(stderr)"
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
    /// SIGPIPE ignored in the test process, once, before the first write to a child's stdin: a child
    /// that exits without reading it all (a usage error) then makes the write fail with EPIPE, which
    /// the writer ignores, instead of killing the whole test run.
    static let pipeSignalIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

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
            _ = ProcessRunner.pipeSignalIgnored
            let writer = inPipe.fileHandleForWriting
            DispatchQueue.global().async {
                // The child may exit without reading everything: ignore SIGPIPE-style failures.
                try? writer.write(contentsOf: stdin)
                try? writer.close()
            }
        }

        var timedOut = false
        var reaped = true
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            // Foundation only reports the exit once every inheritor of the child's descriptors
            // is gone, so take the whole process tree down, not just the child.
            let victims = [process.processIdentifier] + descendants(of: process.processIdentifier)
            for pid in victims { kill(pid, SIGTERM) }
            if exited.wait(timeout: .now() + 2) == .timedOut {
                for pid in victims { kill(pid, SIGKILL) }
                reaped = exited.wait(timeout: .now() + 5) == .success
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        if reaped { process.waitUntilExit() }
        // A grandchild could keep the pipes open; do not wait for it forever.
        _ = readers.wait(timeout: .now() + 5)
        return RunResult(status: reaped ? process.terminationStatus : -1,
                         stdout: outBox.get(),
                         stderr: String(decoding: errBox.get(), as: UTF8.self),
                         elapsed: elapsed, timedOut: timedOut,
                         signaled: reaped && process.terminationReason == .uncaughtSignal,
                         arguments: arguments)
    }
}

/// Every descendant of `pid` (Linux: from /proc; elsewhere none).
private func descendants(of pid: pid_t) -> [pid_t] {
    #if os(Linux)
    var children: [pid_t: [pid_t]] = [:]
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    for entry in entries {
        guard let child = pid_t(entry),
              let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { continue }
        // After "pid (comm)": state, ppid, ...
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.count > 1, let parent = pid_t(fields[1]) { children[parent, default: []].append(child) }
    }
    var result: [pid_t] = []
    var queue = children[pid] ?? []
    while let next = queue.popLast() {
        result.append(next)
        queue += children[next] ?? []
    }
    return result
    #else
    return []
    #endif
}

/// Runs the built `imgfetch`.
enum Imgfetch {
    struct NotBuilt: Error, CustomStringConvertible {
        var description: String {
            "the imgfetch executable was not found next to the test bundle (build it with `swift build --build-tests`, or set IMGFETCH_E2E_BINARY). Searched: \(E2EPaths.searched.joined(separator: ", "))"
        }
    }

    /// The environment every run starts from: the test process's, without anything that could
    /// redirect imgfetch (its own variables, XDG cache and config, proxies, CA variables), with HOME
    /// set to `home` and XDG_CONFIG_HOME inside it.
    static func baseEnvironment(home: URL) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for key in env.keys {
            let lower = key.lowercased()
            if key.hasPrefix("IMGFETCH_") || key == "XDG_CACHE_HOME" || key == "XDG_CONFIG_HOME" || lower.hasSuffix("_proxy")
                || ["CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"].contains(key)
                // Job runners' variables (`--shard auto`): only those a test sets.
                || key.hasPrefix("SLURM_ARRAY_") || key.hasPrefix("CLOUD_RUN_TASK_") || key.hasPrefix("AWS_BATCH_JOB_ARRAY_")
                || key == "JOB_COMPLETION_INDEX"
                // libvips loaded in this test process (an in-process test) sets VIPSHOME to its prefix
                // (vips_guess_prefix): a child would then load every module, as a user's VIPSHOME asks.
                || key == "VIPSHOME" {
                env.removeValue(forKey: key)
            }
        }
        env["HOME"] = home.path
        // A config file only where a test puts one (HOME/config/imgfetch/config).
        env["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
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
