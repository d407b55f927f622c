import Foundation
import XCTest

/// Base class of the end-to-end tests: every test gets its own HTTP server, its own temporary
/// cache directory (passed with `--cache-dir`), HOME and working directory.
class E2ETestCase: XCTestCase {
    private(set) var server: TestServer!
    /// Root of this test's temporary files.
    private(set) var root: URL!
    /// The cache directory `get` is given. Not created beforehand: imgfetch creates it.
    private(set) var cacheDir: URL!
    /// HOME of every run.
    private(set) var home: URL!
    /// Working directory of every run; `file(_:)` names files in it.
    private(set) var work: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        continueAfterFailure = true
        guard E2EPaths.binary != nil else {
            let error = Imgfetch.NotBuilt()
            XCTFail(error.description)
            throw error
        }
        let fm = FileManager.default
        root = fm.temporaryDirectory.appendingPathComponent("imgfetch-e2e-\(UUID().uuidString)", isDirectory: true)
        cacheDir = root.appendingPathComponent("cache", isDirectory: true)
        home = root.appendingPathComponent("home", isDirectory: true)
        work = root.appendingPathComponent("work", isDirectory: true)
        try fm.createDirectory(at: home, withIntermediateDirectories: true)
        try fm.createDirectory(at: work, withIntermediateDirectories: true)
        server = try TestServer()
    }

    override func tearDownWithError() throws {
        server?.stop()
        server = nil
        if let root { try? FileManager.default.removeItem(at: root) }
        try super.tearDownWithError()
    }

    // MARK: - running imgfetch

    /// `imgfetch ARGS` exactly as given (no `--cache-dir` added).
    func imgfetch(_ args: [String], env: [String: String] = [:], stdin: Data? = nil,
                  timeout: TimeInterval = 30) throws -> RunResult {
        let result = try Imgfetch.run(args, env: env, home: home, stdin: stdin,
                                      currentDirectory: work, timeout: timeout)
        if result.timedOut {
            XCTFail("imgfetch did not finish within \(Int(timeout)) s and was killed:\n\(result)")
        }
        return result
    }

    /// `bash scripts/NAME BINARY ARGS` (the repository's demo scripts) from the working directory, in
    /// the base environment with TMPDIR inside this test's root, plus `env`.
    func repositoryScript(_ name: String, _ args: [String] = [], env: [String: String] = [:],
                          timeout: TimeInterval = 120) throws -> RunResult {
        guard let binary = E2EPaths.binary else { throw Imgfetch.NotBuilt() }
        let script = E2EPaths.testsDir.deletingLastPathComponent().appendingPathComponent("scripts/\(name)")
        var environment = Imgfetch.baseEnvironment(home: home)
        environment["TMPDIR"] = root.path
        environment.merge(env) { $1 }
        return ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), [script.path, binary.path] + args, environment: environment,
                                 currentDirectory: work, timeout: timeout)
    }

    /// `imgfetch get --cache-dir CACHE ARGS`.
    func get(_ args: [String], env: [String: String] = [:], timeout: TimeInterval = 30) throws -> RunResult {
        try imgfetch(["get", "--cache-dir", cacheDir.path] + args, env: env, timeout: timeout)
    }

    /// A server URL for a fixture: `/img/NAME` plus an optional query (without `?`).
    func imageURL(_ name: String, _ query: String? = nil) -> String {
        server.url(imagePath(name, query))
    }

    /// The request path the server logs for `imageURL(name, query)`.
    func imagePath(_ name: String, _ query: String? = nil) -> String {
        "/img/\(name)" + (query.map { "?\($0)" } ?? "")
    }

    /// A file in this test's working directory.
    func file(_ name: String) -> URL { work.appendingPathComponent(name) }

    /// Writes `lines` (joined with newlines, with a final newline) to a file in the working directory.
    func writeList(_ lines: [String], name: String = "list.txt") throws -> URL {
        let url = file(name)
        try (lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    // MARK: - assertions

    /// Asserts that `data` is a complete image of `format` and, when given, `width`x`height`.
    @discardableResult
    func assertImage(_ data: Data, _ format: ImageInfo.Format, width: Int? = nil, height: Int? = nil,
                     _ context: @autoclosure () -> String = "",
                     file: StaticString = #filePath, line: UInt = #line) -> ImageInfo? {
        guard let info = ImageInfo(data: data) else {
            XCTFail("not a recognisable image (\(data.count) bytes) \(context())", file: file, line: line)
            return nil
        }
        XCTAssertEqual(info.format, format, "format \(context())", file: file, line: line)
        XCTAssertTrue(info.complete, "the \(info.format) data is cut short \(context())", file: file, line: line)
        if let width { XCTAssertEqual(info.width, width, "width of \(info) \(context())", file: file, line: line) }
        if let height { XCTAssertEqual(info.height, height, "height of \(info) \(context())", file: file, line: line) }
        return info
    }

    @discardableResult
    func assertImageFile(_ url: URL, _ format: ImageInfo.Format, width: Int? = nil, height: Int? = nil,
                         _ context: @autoclosure () -> String = "",
                         file: StaticString = #filePath, line: UInt = #line) -> ImageInfo? {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            XCTFail("\(url.path) was not written \(context())", file: file, line: line)
            return nil
        }
        return assertImage(data, format, width: width, height: height, context(), file: file, line: line)
    }

    func assertExit(_ result: RunResult, _ status: Int32,
                    file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(result.signaled, "imgfetch was killed by signal \(result.status):\n\(result)", file: file, line: line)
        guard !result.signaled else { return }
        XCTAssertEqual(result.status, status, "exit status of\n\(result)", file: file, line: line)
    }

    /// The only JSON record `result` printed (fails if there is not exactly one).
    func singleRecord(_ result: RunResult, file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        let records = result.json
        XCTAssertEqual(records.count, 1, "expected exactly one JSON record on stdout:\n\(result)", file: file, line: line)
        return records.first ?? [:]
    }

    /// `error.code` of a failure record.
    func errorCode(_ record: [String: Any]) -> String? {
        (record["error"] as? [String: Any])?["code"] as? String
    }

    /// Asserts a JSON failure record: status "failed" and error.code == `code`, with a message.
    func assertFailureRecord(_ result: RunResult, code: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        let record = singleRecord(result, file: file, line: line)
        XCTAssertEqual(record["status"] as? String, "failed", "status in \(record)", file: file, line: line)
        XCTAssertEqual(errorCode(record), code, "error.code in \(record)", file: file, line: line)
        let message = (record["error"] as? [String: Any])?["message"] as? String
        XCTAssertFalse(message?.isEmpty ?? true, "error.message in \(record)", file: file, line: line)
    }

    /// Asserts stderr is exactly one non-empty line and it contains `needle`.
    func assertOneErrorLine(_ result: RunResult, containing needle: String,
                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.stderrLines.count, 1, "expected one line on stderr:\n\(result)", file: file, line: line)
        XCTAssertTrue(result.stderr.contains(needle), "stderr should name \(needle):\n\(result)", file: file, line: line)
    }

    /// Every regular file under `dir`, recursively.
    func regularFiles(under dir: URL) -> [URL] {
        guard let e = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        return e.compactMap { $0 as? URL }.filter {
            (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    func int(_ key: String) -> Int? {
        switch self[key] {
        case let v as Int: return v
        case let v as Double: return v == v.rounded() ? Int(v) : nil
        case let v as NSNumber: return v.intValue
        default: return nil
        }
    }
    func double(_ key: String) -> Double? {
        switch self[key] {
        case let v as Double: return v
        case let v as Int: return Double(v)
        case let v as NSNumber: return v.doubleValue
        default: return nil
        }
    }
    func string(_ key: String) -> String? { self[key] as? String }

}

extension E2ETestCase {
    /// Starts the binary under test with `args`, in the test's home and work directory, stdin
    /// empty, stdout and stderr into the given files (nil: discarded); the caller waits or signals.
    func launch(_ args: [String], stdout: URL? = nil, stderr: URL? = nil) throws -> Process {
        guard let binary = E2EPaths.binary else { throw Imgfetch.NotBuilt() }
        let process = Process()
        process.executableURL = binary
        process.arguments = args
        process.environment = Imgfetch.baseEnvironment(home: home)
        process.currentDirectoryURL = work
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try stdout.map { try FileHandle(forWritingTo: $0) } ?? FileHandle.nullDevice
        process.standardError = try stderr.map { try FileHandle(forWritingTo: $0) } ?? FileHandle.nullDevice
        try process.run()
        return process
    }
}
