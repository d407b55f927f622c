import Foundation
import XCTest

/// What imgfetch says while it works (issue 22): get's download meter in a real pseudo-terminal
/// (script(1)) against a trickling server, and its absence off a terminal and with --no-progress;
/// retry notices (source, cause, wait, retries left) against a flaky server, on stderr, in the
/// --json record's warnings and above prefetch's bar; prefetch --save-failed and its rerun.
final class FeedbackTests: E2ETestCase {
    /// Runs `command` (a shell command line) under script(1) in an 80-column pseudo-terminal;
    /// returns everything written to the terminal.
    func onTerminal(_ command: String, env: [String: String] = ["TERM": "xterm"]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("script(1) (util-linux) is needed") }
        var environment = Imgfetch.baseEnvironment(home: home)
        environment.merge(env) { _, new in new }
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/script"),
                                  ["-qec", "stty cols 80 rows 30; \(command); echo \"[exit $?]\"", "/dev/null"],
                                  environment: environment, currentDirectory: work, timeout: 60)
        return r.stdoutText
    }

    /// `imgfetch get URL -o out.jpg` as a shell command line, with `extra` options.
    func getCommand(_ url: String, _ extra: String = "") -> String {
        "'\(E2EPaths.binary!.path)' get '\(url)' -o '\(file("out.jpg").path)' --cache-dir '\(cacheDir.path)' \(extra)"
    }

    /// The meter's frames: what each carriage return starts, without escape codes.
    static func meterFrames(_ screen: String) -> [String] {
        let plain = screen.replacingOccurrences(of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
        return plain.components(separatedBy: "\r").flatMap { $0.components(separatedBy: "\n") }
            .filter { $0.contains(" of ") && $0.contains("K") }
    }

    /// photo.jpg (329 KB) in pieces of 4000 bytes 25 ms apart: about two seconds.
    var tricklingURL: String { imageURL("photo.jpg", "trickle=25") }

    func testMeterShowsBytesTotalRateAndTimeLeftThenIsCleared() throws {
        let screen = try onTerminal(getCommand(tricklingURL))
        XCTAssertTrue(screen.contains("[exit 0]"), screen)
        let frames = Self.meterFrames(screen)
        XCTAssertGreaterThanOrEqual(frames.count, 3, "the meter is drawn while the download trickles:\n\(screen.debugDescription)")
        XCTAssertTrue(frames.contains { $0.contains("of 329K") && $0.contains("/s") && $0.contains("ETA") && $0.contains("%") },
                      "bytes, total, rate and time left: \(frames)")
        for frame in frames { XCTAssertLessThan(frame.trimmingCharacters(in: .whitespaces).count, 80, "'\(frame)'") }
        // Cleared on exit: nothing of the meter is left between its last erase and the shell's line.
        let tail = screen.components(separatedBy: "\u{1B}[K").last ?? ""
        XCTAssertEqual(tail.replacingOccurrences(of: "\r", with: "").trimmingCharacters(in: .whitespacesAndNewlines), "[exit 0]",
                       "the meter is erased before imgfetch exits:\n\(screen.debugDescription)")
        assertImageFile(file("out.jpg"), .jpeg, width: 1200, height: 800)
    }

    /// Bytes in bursts 0.4 s apart: the rate is there from the first frame and never reads 0B/s
    /// while they arrive (it was measured from the first frame on, over 0.1 s between two readings).
    func testTheMeterRateCountsFromTheFirstBytes() throws {
        let screen = try onTerminal(getCommand(imageURL("grey-profile.jpg", "trickle=400")))
        XCTAssertTrue(screen.contains("[exit 0]"), screen)
        let frames = Self.meterFrames(screen)
        XCTAssertGreaterThanOrEqual(frames.count, 3, "drawn while the bursts arrive:\n\(screen.debugDescription)")
        XCTAssertTrue(frames.first?.contains("/s") == true, "a rate in the first frame: \(frames)")
        for frame in frames { XCTAssertFalse(frame.contains("  0B/s"), "no 0B/s while bytes arrive: \(frames)") }
    }

    func testMeterIsPlainTextWithTermDumb() throws {
        let screen = try onTerminal(getCommand(tricklingURL), env: ["TERM": "dumb"])
        XCTAssertTrue(screen.contains("[exit 0]"), screen)
        XCTAssertFalse(screen.contains("\u{1B}"), "no escape codes with TERM=dumb:\n\(screen.debugDescription)")
        XCTAssertGreaterThanOrEqual(Self.meterFrames(screen).count, 2, "the meter is still drawn:\n\(screen.debugDescription)")
    }

    func testNoMeterWithNoProgressOrQuiet() throws {
        for option in ["--no-progress", "--quiet"] {
            try? FileManager.default.removeItem(at: cacheDir)
            let screen = try onTerminal(getCommand(tricklingURL, option))
            XCTAssertTrue(screen.contains("[exit 0]"), screen)
            XCTAssertEqual(Self.meterFrames(screen), [], "\(option): no meter:\n\(screen.debugDescription)")
            XCTAssertFalse(screen.contains("\u{1B}[K"), "\(option): nothing drawn:\n\(screen.debugDescription)")
        }
    }

    func testNoMeterOffATerminal() throws {
        let r = try get([tricklingURL, "-o", file("out.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(r.stderr, "", "stderr is not a terminal: nothing is drawn")
    }

    /// The words a retry notice must have: the source, the cause, the wait, the retries left.
    func assertNotice(_ line: String, source: String, cause: String, left: Int, file: StaticString = #filePath, line n: UInt = #line) {
        XCTAssertTrue(line.contains(source), "names the source: \(line)", file: file, line: n)
        XCTAssertTrue(line.contains(cause), "names the cause \(cause): \(line)", file: file, line: n)
        XCTAssertNotNil(line.range(of: "will retry in [0-9.]+ s", options: .regularExpression), "says the wait: \(line)", file: file, line: n)
        XCTAssertTrue(line.contains(left == 1 ? "1 retry left" : "\(left) retries left"), "says the retries left (\(left)): \(line)", file: file, line: n)
    }

    func testRetryNoticesOnStderrAndInTheRecordsWarnings() throws {
        let url = server.url("/flaky/get-notices?fail=2")
        let r = try get([url, "--retry", "3", "--retry-delay", "0.1", "--json", "-o", file("out.jpg").path])
        assertExit(r, 0)
        let notices = r.stderrLines.filter { $0.hasPrefix("imgfetch: retry: ") }
        XCTAssertEqual(notices.count, 2, "one line per retry, as it is decided:\n\(r.stderr)")
        if notices.count == 2 {
            assertNotice(notices[0], source: url, cause: "HTTP 503", left: 3)
            assertNotice(notices[1], source: url, cause: "HTTP 503", left: 2)
        }
        let record = singleRecord(r)
        let warnings = record["warnings"] as? [String] ?? []
        XCTAssertEqual(warnings, notices.map { String($0.dropFirst("imgfetch: ".count)) }, "the record carries the same notices")
        XCTAssertEqual(record.int("attempts"), 3)
    }

    func testRetryNoticesOfAFailureAndOfATimeout() throws {
        let url = server.url("/status/502")
        let r = try get([url, "--retry", "1", "--retry-delay", "0.1", "--json", "-o", file("out.jpg").path])
        assertExit(r, 5)
        let notices = r.stderrLines.filter { $0.hasPrefix("imgfetch: retry: ") }
        XCTAssertEqual(notices.count, 1, r.stderr)
        notices.first.map { assertNotice($0, source: url, cause: "HTTP 502", left: 1) }
        XCTAssertEqual((singleRecord(r)["warnings"] as? [String])?.count, 1, "the failure record has the notice")

        let slow = server.url("/hang?seconds=3")
        let t = try get([slow, "--retry", "1", "--retry-delay", "0.1", "--timeout", "0.5", "-o", file("out.jpg").path])
        assertExit(t, 6)
        let timeouts = t.stderrLines.filter { $0.hasPrefix("imgfetch: retry: ") }
        XCTAssertEqual(timeouts.count, 1, t.stderr)
        timeouts.first.map { assertNotice($0, source: slow, cause: "timed out", left: 1) }
    }

    func testQuietHasNoNoticesButTheRecordKeepsThem() throws {
        let r = try get([server.url("/flaky/quiet?fail=1"), "--retry", "2", "--retry-delay", "0.1", "--quiet", "--json", "-o", file("out.jpg").path])
        assertExit(r, 0)
        XCTAssertFalse(r.stderr.contains("retry"), r.stderr)
        XCTAssertEqual((singleRecord(r)["warnings"] as? [String])?.count, 1)
    }

    func testPrefetchNoticesAreAboveTheBar() throws {
        let flaky = server.url("/flaky/prefetch-notices?fail=2")
        let list = try writeList([flaky] + (1...4).map { imageURL("tiny.jpg", "v=\($0)") })
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--retry", "2", "--retry-delay", "0.1", "--progress",
                              "--json", "-j", "2", list.path])
        assertExit(r, 0)
        // Each notice is a line of its own, the bar erased before it (what follows its last \r).
        let lines = r.stderr.components(separatedBy: "\n").map { $0.components(separatedBy: "\r").last ?? "" }
        let notices = lines.filter { $0.hasPrefix("imgfetch: retry: ") }
        XCTAssertEqual(notices.count, 2, r.stderr.debugDescription)
        if notices.count == 2 {
            assertNotice(notices[0], source: flaky, cause: "HTTP 503", left: 2)
            assertNotice(notices[1], source: flaky, cause: "HTTP 503", left: 1)
        }
        XCTAssertFalse(r.stderr.components(separatedBy: "\r").contains { $0.contains("retry:") && $0.contains("img/s") },
                       "a notice never shares a line with the bar:\n\(r.stderr.debugDescription)")
        let record = r.json.first { ($0["original_source"] as? String) == flaky }
        XCTAssertEqual((record?["warnings"] as? [String])?.count, 2, "the line's record has its notices")
    }

    func testPrefetchBarShowsBytesPerSecondAndTransfersInFlight() throws {
        let list = try writeList((1...6).map { imageURL("photo.jpg", "trickle=10&v=\($0)") })
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--progress", "-j", "3", list.path], env: ["COLUMNS": "200"])
        assertExit(r, 0)
        let frames = r.stderr.components(separatedBy: "\r")
        XCTAssertTrue(frames.contains { $0.range(of: "[0-9.]+[KM]/s", options: .regularExpression) != nil }, "bytes/s:\n\(r.stderr.debugDescription)")
        XCTAssertTrue(frames.contains { $0.range(of: "[1-3] in flight", options: .regularExpression) != nil }, "transfers in flight:\n\(r.stderr.debugDescription)")
    }

    // MARK: - --save-failed

    func testSaveFailedKeepsTheFailedLinesAsWrittenAndTheRerunRunsOnlyThem() throws {
        let lines = [
            imageURL("tiny.jpg", "v=ok1"),
            "  " + server.url("/status/404") + "   referer=https://a.example/   alt=" + server.url("/status/410"),
            "# a comment",
            server.url("/status/500") + " header=\"X-Test: one two\"",
            "not a url at all",
            imageURL("tiny.jpg", "v=ok2"),
        ]
        let list = try writeList(lines)
        let saved = file("failed.txt")
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--save-failed", saved.path, list.path])
        assertExit(r, 1)
        XCTAssertEqual(try String(contentsOf: saved, encoding: .utf8), lines[1] + "\n" + lines[3] + "\n",
                       "the failed lines as written, fields kept, in list order; not the malformed line")

        try server.reset()
        // --retry-failed: the 404 and 410 were remembered (--failure-ttl); asked again here.
        let again = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", "--retry-failed", "--save-failed", saved.path, saved.path])
        assertExit(again, 1)
        let sources = Set(again.json.compactMap { $0["original_source"] as? String })
        XCTAssertEqual(sources, [server.url("/status/404"), server.url("/status/500")], "the rerun runs only the failed lines")
        let paths = Set(try server.requestLog().map(\.path))
        XCTAssertFalse(paths.contains { $0.contains("tiny.jpg") }, "nothing else is fetched: \(paths)")
        XCTAssertTrue(paths.contains("/status/410"), "the line's fields are kept (its alt=): \(paths)")
        XCTAssertEqual(try String(contentsOf: saved, encoding: .utf8), lines[1] + "\n" + lines[3] + "\n", "rewritten whole")

        let fixed = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--save-failed", saved.path, try writeList([imageURL("tiny.jpg", "v=ok3")], name: "ok.txt").path])
        assertExit(fixed, 0)
        XCTAssertEqual(try String(contentsOf: saved, encoding: .utf8), "", "nothing failed: an empty file")
    }

    func testSavedFailedLinesAreTheOwnersOnlyForTheyMayHoldPasswords() throws {
        let list = try writeList([server.url("/status/500") + " user=bob:secret-pw-31"])
        let saved = file("failed.txt")
        FileManager.default.createFile(atPath: saved.path, contents: Data("old\n".utf8), attributes: [.posixPermissions: 0o644])
        assertExit(try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--save-failed", saved.path, list.path]), 1)
        XCTAssertTrue(try String(contentsOf: saved, encoding: .utf8).contains("secret-pw-31"))
        let mode = (try FileManager.default.attributesOfItem(atPath: saved.path)[.posixPermissions] as? NSNumber)?.intValue
        XCTAssertEqual(mode, 0o600, "a 0644 file is replaced by a 0600 one")
        try FileManager.default.removeItem(at: saved)
        assertExit(try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--save-failed", saved.path, list.path]), 1)
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: saved.path)[.posixPermissions] as? NSNumber)?.intValue, 0o600)
    }

    func testSaveFailedToADirectoryIsAUsageError() throws {
        let list = try writeList([imageURL("tiny.jpg")])
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--save-failed", work.path, list.path])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("--save-failed"), r.stderr)
        XCTAssertEqual(try server.totalRequests(), 0, "refused before any work")
    }

    func testSaveFailedIsWrittenOnSIGINT() throws {
        try assertSaveFailedIsWritten(on: SIGINT, exiting: 130)
    }

    func testSaveFailedIsWrittenOnSIGTERM() throws {
        try assertSaveFailedIsWritten(on: SIGTERM, exiting: 143)
    }

    func assertSaveFailedIsWritten(on signal: Int32, exiting code: Int32) throws {
        let failing = server.url("/status/404?s=\(signal)") + " referer=https://b.example/"
        let list = try writeList([failing] + (0..<3).map { server.url("/slow/tiny.jpg?seconds=10&v=\($0)") })
        let saved = file("failed.txt")
        let err = file("err.txt")
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = try launch(["prefetch", "--cache-dir", cacheDir.path, "-j", "4", "--save-failed", saved.path, list.path], stderr: err)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Until the 404 has been reported and the slow ones are in flight.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
            if stderr.contains("HTTP 404"), try server.totalRequests() >= 4 { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        kill(process.processIdentifier, signal)
        let stop = Date().addingTimeInterval(10)
        while process.isRunning && Date() < stop { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertFalse(process.isRunning, "stops after the signal")
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, code)
        XCTAssertEqual(try String(contentsOf: saved, encoding: .utf8), failing + "\n", "the lines that failed before the interrupt")
    }
}

/// Notices come as each retry is decided, not with the result: while the retry's wait (a
/// Retry-After of 20 s) runs, the notice is already on stderr, in get and in prefetch.
final class FeedbackTimingTests: E2ETestCase {
    func assertNoticeBeforeTheEnd(_ args: [String]) throws {
        let err = file("err-\(UUID().uuidString.prefix(6)).txt")
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = try launch(args, stderr: err)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var stderr = ""
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline && process.isRunning {
            stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
            if stderr.contains("imgfetch: retry: ") { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertTrue(process.isRunning, "still waiting for the retry when the notice is out")
        XCTAssertTrue(stderr.contains("HTTP 503; will retry in 20 s, 1 retry left"), "\(args[0]): \(stderr)")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
    }

    func testGetAnnouncesTheRetryWhileItWaits() throws {
        try assertNoticeBeforeTheEnd(["get", "--cache-dir", cacheDir.path, server.url("/flaky/wait-get?fail=1&retry_after=20"),
                                      "--retry", "1", "-o", file("out.jpg").path])
    }

    func testPrefetchAnnouncesTheRetryWhileItWaits() throws {
        let list = try writeList([server.url("/flaky/wait-prefetch?fail=1&retry_after=20")])
        try assertNoticeBeforeTheEnd(["prefetch", "--cache-dir", cacheDir.path, "--retry", "1", "--progress", list.path])
    }
}
