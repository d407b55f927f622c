import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Prefetch lists as they really arrive: from Windows and spreadsheets (CRLF, a byte order mark),
/// through FIFOs and pipes that stay open, as hostile streams (no line ends, huge lines), and into a
/// reader that goes away (`| head -1`).
final class PrefetchListTests: E2ETestCase {
    private func prefetch(_ args: [String], stdin: Data? = nil, timeout: TimeInterval = 30) throws -> RunResult {
        try imgfetch(["prefetch", "--cache-dir", cacheDir.path] + args, stdin: stdin, timeout: timeout)
    }

    private func summary(_ r: RunResult) -> [String: Any] {
        r.json.last { $0["summary"] as? Bool == true } ?? [:]
    }

    private func results(_ r: RunResult) -> [[String: Any]] {
        r.json.filter { $0["summary"] as? Bool != true }
    }

    /// Runs `script` with bash (`$0` is the imgfetch binary, then `args`), killed after `timeout`.
    private func bash(_ script: String, _ args: [String], timeout: TimeInterval = 60) throws -> RunResult {
        guard let binary = E2EPaths.binary else { throw Imgfetch.NotBuilt() }
        let r = ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), ["-c", script, binary.path] + args,
                                  environment: Imgfetch.baseEnvironment(home: home), currentDirectory: work, timeout: timeout)
        XCTAssertFalse(r.timedOut, "bash -c \(script) did not finish within \(Int(timeout)) s:\n\(r)")
        return r
    }

    /// Starts imgfetch with stdin, stdout and stderr as given; the caller waits for it.
    private func start(_ args: [String], stdin: Any, stdout: FileHandle, stderr: FileHandle) throws -> Process {
        guard let binary = E2EPaths.binary else { throw Imgfetch.NotBuilt() }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["prefetch", "--cache-dir", cacheDir.path] + args
        process.environment = Imgfetch.baseEnvironment(home: home)
        process.currentDirectoryURL = work
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        return process
    }

    private func waitUntil(_ seconds: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }

    private func outputFiles() -> (out: URL, err: URL, outHandle: FileHandle, errHandle: FileHandle)? {
        let out = file("out-\(UUID().uuidString).txt"), err = file("err-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        guard let o = try? FileHandle(forWritingTo: out), let e = try? FileHandle(forWritingTo: err) else { return nil }
        return (out, err, o, e)
    }

    // MARK: - CRLF and BOM

    func testACRLFListWithAByteOrderMarkJustWorks() throws {
        let a = imageURL("tiny.jpg", "v=crlf1"), b = imageURL("small.webp"), alt = imageURL("tiny.jpg", "v=alt")
        let notFound = server.url("/status/404")
        let text = "\u{FEFF}\(a)\r\n# a comment\r\n\r\n\(b)\r\n\(notFound) alt=\(alt)\r\n"
        let list = file("windows.txt")
        try Data(text.utf8).write(to: list)
        let r = try prefetch(["--json", list.path])
        assertExit(r, 0)
        let s = summary(r)
        XCTAssertEqual(s.int("ok"), 3, "\(r)")
        XCTAssertEqual(s.int("failed"), 0, "\(r)")
        XCTAssertEqual(s.int("malformed"), 0, "the BOM line and the blank CRLF line are not malformed:\n\(r)")
        XCTAssertEqual(Set(results(r).compactMap { $0.string("original_source") }), [a, b, notFound])
        XCTAssertEqual(results(r).first { $0.string("original_source") == notFound }?.string("source"), alt,
                       "alt= before CRLF is the alternative itself, not alt + CR")
        XCTAssertFalse(r.stderr.contains("\r"), "no CR reaches a message:\n\(r.stderr.debugDescription)")
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg", "v=crlf1")), 1)
        XCTAssertEqual(try server.requestCount(imagePath("small.webp")), 1)
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg", "v=alt")), 1)

        // The same list on stdin.
        let piped = try prefetch(["--json", "-"], stdin: Data(text.utf8))
        assertExit(piped, 0)
        XCTAssertEqual(summary(piped).int("ok"), 3, "\(piped)")
        XCTAssertEqual(summary(piped).int("hits"), 3, "\(piped)")
    }

    // MARK: - FIFOs, <(...) and the progress bar

    func testAFIFOListWithTheProgressBarFetchesEveryLine() throws {
        let urls = (0..<12).map { imageURL("tiny.jpg", "v=fifo\($0)") }
        let list = try writeList(urls)
        let fifo = file("list.fifo")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        // The writer blocks until imgfetch opens the FIFO; killed at the end whatever happens.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "cat \"$0\" > \"$1\"", list.path, fifo.path]
        try writer.run()
        defer { if writer.isRunning { kill(writer.processIdentifier, SIGKILL) } }

        let r = try prefetch(["--no-robots", "--progress", "--json", fifo.path])
        assertExit(r, 0)
        XCTAssertEqual(summary(r).int("ok"), urls.count, "the bar did not read the FIFO away:\n\(r)")
        XCTAssertEqual(try server.totalRequests(), urls.count)
        XCTAssertTrue(r.stderr.contains("done"), "a bar without a total:\n\(r.stderr.debugDescription)")

        // <(...) is a pipe under /dev/fd.
        let more = (0..<5).map { imageURL("tiny.jpg", "v=procsub\($0)") }
        let moreList = try writeList(more, name: "more.txt")
        let sub = try bash("exec \"$0\" prefetch --no-robots --cache-dir \"$1\" --progress --json <(cat \"$2\")", [cacheDir.path, moreList.path])
        assertExit(sub, 0)
        XCTAssertEqual(summary(sub).int("ok"), more.count, "\(sub)")
        XCTAssertEqual(try server.totalRequests(), urls.count + more.count)
    }

    func testTheProgressTotalCountsOnlySourceLines() throws {
        let urls = (0..<3).map { imageURL("tiny.jpg", "v=total\($0)") }
        let list = try writeList(["# three sources, one malformed line", "", urls[0], "   ", urls[1], "# x", "ftp://malformed", urls[2], ""])
        let r = try prefetch(["--progress", "--json", list.path])
        assertExit(r, 1)
        let totals = Set(r.stderr.matches(of: /(\d+)\/(\d+)/).map { Int($0.output.2)! })
        XCTAssertEqual(totals, [4], "sources and the malformed line, not comments or blank lines:\n\(r.stderr.debugDescription)")
    }

    // MARK: - a pipe that stays open

    func testAPipedLineStartsAtOnceAndTheFirstSIGINTStopsWithTheSummary() throws {
        guard let files = outputFiles() else { return XCTFail("no output files") }
        defer { try? files.outHandle.close(); try? files.errHandle.close() }
        let input = Pipe()
        let process = try start(["--no-robots", "--json", "-"], stdin: input, stdout: files.outHandle, stderr: files.errHandle)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        defer { try? input.fileHandleForWriting.close() }

        let url = imageURL("tiny.jpg", "v=piped")
        input.fileHandleForWriting.write(Data((url + "\n").utf8))   // and the pipe stays open
        XCTAssertTrue(try waitUntil(10) { try server.totalRequests() >= 1 }, "the line was not started while the pipe is open")
        XCTAssertTrue(waitUntil(10) { ((try? String(contentsOf: files.out, encoding: .utf8)) ?? "").contains("\"ok\"") },
                      "its record is printed")

        let signalled = Date()
        kill(process.processIdentifier, SIGINT)
        XCTAssertTrue(waitUntil(5) { !process.isRunning }, "the first SIGINT stops a prefetch waiting for its list")
        guard !process.isRunning else { return }
        XCTAssertLessThan(Date().timeIntervalSince(signalled), 3)
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 130)
        let stdout = (try? String(contentsOf: files.out, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: files.err, encoding: .utf8)) ?? ""
        let records = stdout.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        let s = records.last { $0["summary"] as? Bool == true } ?? [:]
        XCTAssertEqual(s["interrupted"] as? Bool, true, "the summary record:\n\(stdout)")
        XCTAssertEqual(s.int("ok"), 1, "\(s)")
        XCTAssertTrue(stderr.contains("prefetch interrupted: 1 ok"), "the summary line:\n\(stderr)")
        XCTAssertEqual(try server.totalRequests(), 1)
    }

    // MARK: - lines without end

    func testALineOver64KiBIsReportedBrieflyAndTheNextLineIsFetched() throws {
        let good = imageURL("tiny.jpg", "v=after-long")
        let huge = imageURL("tiny.jpg", "v=") + String(repeating: "a", count: 10 << 20)
        let list = try writeList([huge, good])
        let r = try prefetch(["--no-robots", "--json", list.path])
        assertExit(r, 1)
        let s = summary(r)
        XCTAssertEqual(s.int("malformed"), 1, "\(s)")
        XCTAssertEqual(s.int("ok"), 1, "\(s)")
        XCTAssertLessThan(r.stderr.utf8.count, 1000, "the line is not echoed whole")
        XCTAssertTrue(r.stderrLines.contains { $0.contains("\(list.path):1:") && $0.contains("64 KiB") }, "\(r.stderr)")
        XCTAssertEqual(try server.totalRequests(), 1)
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg", "v=after-long")), 1, "the following line is fetched")
    }

    func testAStreamOfZeroBytesStaysBounded() throws {
        signal(SIGPIPE, SIG_IGN)   // a write into a pipe whose reader died fails instead of killing the tests
        guard let files = outputFiles() else { return XCTFail("no output files") }
        defer { try? files.outHandle.close(); try? files.errHandle.close() }
        let input = Pipe()
        let process = try start(["--json", "-"], stdin: input, stdout: files.outHandle, stderr: files.errHandle)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let writeEnd = input.fileHandleForWriting.fileDescriptor

        // 150 MB of zero bytes, no line end, written from another thread: a reader that stops
        // reading cannot hang the test (the process is killed at the deadline, failing the write).
        let total = 150 << 20   // getline doubled its buffer to 256 MB for this
        let written = ManagedAtomicInt()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let zeros = [UInt8](repeating: 0, count: 1 << 16)
            while written.value < total {
                let n = zeros.withUnsafeBytes { Glibc.write(writeEnd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                written.add(n)
            }
            done.signal()
        }
        let finished = done.wait(timeout: .now() + 30) == .success
        if !finished { kill(process.processIdentifier, SIGKILL) }
        XCTAssertTrue(finished && written.value >= total, "imgfetch read \(written.value) of \(total) bytes")
        // The peak so far, while the pipe is still open and the process alive.
        let peak = process.isRunning ? peakRSSKiB(process.processIdentifier) : nil
        try? input.fileHandleForWriting.close()
        XCTAssertTrue(waitUntil(10) { !process.isRunning }, "prefetch ends with its input")
        if process.isRunning { return }
        XCTAssertNotNil(peak, "VmHWM of the running process")
        if let peak { XCTAssertLessThan(peak, 100 * 1024, "peak RSS \(peak) KiB for a 150 MB line") }
        XCTAssertEqual(process.terminationStatus, 1)
        let stderr = (try? String(contentsOf: files.err, encoding: .utf8)) ?? ""
        XCTAssertTrue(stderr.contains("stdin:1:") && stderr.contains("64 KiB"), stderr)
        XCTAssertLessThan(stderr.utf8.count, 1000, stderr)
        XCTAssertEqual(try server.totalRequests(), 0)
    }

    private func peakRSSKiB(_ pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    // MARK: - a reader that goes away

    func testAClosedStdoutStopsTheRunPromptly() throws {
        let count = 2000
        let list = try writeList((0..<count).map { imageURL("tiny.jpg", "v=head\($0)") })
        let r = try bash("set -o pipefail; \"$0\" prefetch --cache-dir \"$1\" --json \"$2\" | head -1; echo \"status=${PIPESTATUS[0]}\" >&2",
                         [cacheDir.path, list.path])
        XCTAssertEqual(r.stdoutText.split(separator: "\n").count, 1, "head -1 printed one record:\n\(r)")
        XCTAssertTrue(r.stderr.contains("status=141"), "exit status 141, as for SIGPIPE:\n\(r.stderr)")
        XCTAssertTrue(r.stderr.contains("standard output closed"), "the summary says why it stopped:\n\(r.stderr)")
        let requests = try server.totalRequests()
        XCTAssertLessThan(requests, count / 4, "the run stopped: \(requests) requests for \(count) lines")
        assertExit(try imgfetch(["cache", "verify", "--cache-dir", cacheDir.path]), 0)
    }
}

/// A counter shared with a writer thread.
private final class ManagedAtomicInt: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    func add(_ n: Int) { lock.lock(); count += n; lock.unlock() }
}
