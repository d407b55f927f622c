import Foundation
import XCTest

/// SIGTERM exits 143, SIGINT 130 and SIGHUP 129 (128 + the signal, as shells report them): prefetch
/// after its summary, get after removing the temporary files it was writing.
final class SignalTests: E2ETestCase {
    /// Starts imgfetch with stdout and stderr in files; returns the process and those files.
    func start(_ args: [String]) throws -> (process: Process, out: URL, err: URL) {
        let out = file("out-\(UUID().uuidString.prefix(6)).txt"), err = file("err-\(UUID().uuidString.prefix(6)).txt")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = try launch(args, stdout: out, stderr: err)
        return (process, out, err)
    }

    func waitForExit(_ process: Process, seconds: Double = 10) {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL); XCTFail("still running \(seconds) s after the signal") }
        process.waitUntilExit()
    }

    func assertPrefetchStops(on signal: Int32, exiting code: Int32) throws {
        let list = try writeList((0..<4).map { server.url("/slow/tiny.jpg?seconds=5&v=\($0)") })
        let run = try start(["prefetch", "--cache-dir", cacheDir.path, "-j", "2", "--json", list.path])
        let deadline = Date().addingTimeInterval(10)
        while try server.totalRequests() < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        kill(run.process.processIdentifier, signal)
        waitForExit(run.process)
        XCTAssertEqual(run.process.terminationReason, .exit, "exits, not killed by the signal")
        XCTAssertEqual(run.process.terminationStatus, code)
        let stdout = try String(contentsOf: run.out, encoding: .utf8)
        XCTAssertTrue(stdout.contains("\"summary\":true") && stdout.contains("\"interrupted\":true"), "the summary first: \(stdout)")
        let stderr = try String(contentsOf: run.err, encoding: .utf8)
        XCTAssertTrue(stderr.contains("prefetch interrupted"), stderr)
    }

    func testPrefetchExits143AfterSIGTERMWithTheSummary() throws {
        try assertPrefetchStops(on: SIGTERM, exiting: 143)
    }

    func testPrefetchExits130AfterSIGINTWithTheSummary() throws {
        try assertPrefetchStops(on: SIGINT, exiting: 130)
    }

    func testPrefetchExits129AfterSIGHUPWithTheSummary() throws {
        try assertPrefetchStops(on: SIGHUP, exiting: 129)
    }

    /// A signal imgfetch was started with ignored stays ignored (a background job of a shell script
    /// has SIGINT ignored; nohup ignores SIGHUP): the run goes on, and ends by another signal.
    func testASignalInheritedAsIgnoredStaysIgnored() throws {
        guard let binary = E2EPaths.binary else { throw XCTSkip("no binary") }
        for (ignored, name) in [(SIGINT, "INT"), (SIGHUP, "HUP")] {
            let list = try writeList((0..<4).map { server.url("/slow/tiny.jpg?seconds=5&v=\(name)\($0)") }, name: "\(name).txt")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["--ignore-signal=\(name)", binary.path, "prefetch", "--cache-dir", cacheDir.path, "-j", "2", list.path]
            process.environment = Imgfetch.baseEnvironment(home: home)
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            let deadline = Date().addingTimeInterval(10)
            while try server.requestLog().filter({ $0.path.contains("v=\(name)") }).count < 2 && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
            let mask = status.split(separator: "\n").first { $0.hasPrefix("SigIgn:") }
                .flatMap { UInt64($0.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
            XCTAssertEqual((mask >> UInt64(ignored - 1)) & 1, 1, "SIG\(name) is still ignored while the run works")
            kill(process.processIdentifier, ignored)
            kill(process.processIdentifier, SIGTERM)
            waitForExit(process)
            XCTAssertEqual(process.terminationStatus, 143, "SIG\(name) was ignored; SIGTERM stopped it")
        }
    }

    func testGetExitsWithTheSignalsCodeDuringADownload() throws {
        for (signal, code) in [(SIGTERM, Int32(143)), (SIGINT, Int32(130))] {
            let run = try start(["get", "--cache-dir", cacheDir.path, server.url("/slow/photo.jpg?seconds=5&v=\(signal)"), "-o", file("o.jpg").path])
            let deadline = Date().addingTimeInterval(10)
            while try server.requestLog().filter({ $0.path.contains("v=\(signal)") }).isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            kill(run.process.processIdentifier, signal)
            waitForExit(run.process)
            XCTAssertEqual(run.process.terminationReason, .exit)
            XCTAssertEqual(run.process.terminationStatus, code)
            XCTAssertFalse(FileManager.default.fileExists(atPath: file("o.jpg").path))
        }
    }

    /// strace holds the first rename(2)/renameat(2) (the cache committing the image) for 5 s, so the temporary
    /// file certainly exists when SIGTERM arrives: the body arrived whole, so get lets the store finish
    /// (the entry is kept: the next get is a hit), writes no image, leaves no temporary file, exits 143.
    func testASignalDuringTheStoreKeepsTheEntryAndExits143() throws {
        let strace = URL(fileURLWithPath: "/usr/bin/strace")
        guard FileManager.default.isExecutableFile(atPath: strace.path), let binary = E2EPaths.binary else {
            throw XCTSkip("strace is needed (scripts/install-deps.sh installs it)")
        }
        let trace = file("strace.txt")
        let process = Process()
        process.executableURL = strace
        process.arguments = ["-f", "-q", "-o", trace.path, "-e", "trace=rename,renameat,renameat2,exit_group",
                             "-e", "inject=rename,renameat,renameat2:delay_enter=5000000:when=1",
                             binary.path, "get", "--cache-dir", cacheDir.path, imageURL("photo.jpg"), "-s", "100", "-o", file("o.jpg").path]
        process.environment = Imgfetch.baseEnvironment(home: home)
        process.currentDirectoryURL = work
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        let temporary = { self.regularFiles(under: self.cacheDir).filter { $0.lastPathComponent.hasPrefix(".tmp-") } }
        let deadline = Date().addingTimeInterval(20)
        while temporary().isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertFalse(temporary().isEmpty, "the image's temporary file exists while its rename is held")
        let tracee = try String(contentsOf: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/task/\(process.processIdentifier)/children"), encoding: .utf8)
            .split(separator: " ").compactMap { Int32($0) }.first
        guard let tracee else { return XCTFail("no imgfetch under strace") }
        kill(tracee, SIGTERM)
        waitForExit(process, seconds: 30)
        let log = try String(contentsOf: trace, encoding: .utf8)
        XCTAssertTrue(log.contains("+++ exited with 143 +++"), "imgfetch exits 143 (not killed by the signal):\n\(log)")
        XCTAssertEqual(temporary().map(\.path), [], "no temporary file is left")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("o.jpg").path), "no image is written after a signal")
        assertExit(try imgfetch(["cache", "verify", "--cache-dir", cacheDir.path]), 0)
        let again = try get([imageURL("photo.jpg"), "-s", "100", "-o", file("o.jpg").path, "--json"])
        assertExit(again, 0)
        XCTAssertEqual(singleRecord(again)["cache"] as? String, "hit", "the downloaded body was kept: \(again)")
    }
}
