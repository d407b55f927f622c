import Foundation
import XCTest

/// The prefetch progress bar in a real pseudo-terminal: it fits the width (never wraps, leaves no
/// stale line), is plain text with TERM=dumb, honours NO_COLOR, and works without a total.
final class ProgressBarTests: E2ETestCase {
    /// A list that takes about a second with -j 2 (so the bar is drawn several times), one 404.
    func slowList() throws -> URL {
        try writeList((1...12).map { server.url("/slow/tiny.jpg?seconds=0.15&v=\($0)") } + [server.url("/status/404")])
    }

    /// Runs `command` (a shell command line) under script(1) in a pseudo-terminal `columns` wide;
    /// returns everything written to the terminal.
    func onTerminal(_ command: String, columns: Int, env: [String: String]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("script(1) (util-linux) is needed") }
        var environment = Imgfetch.baseEnvironment(home: home)
        environment.merge(env) { _, new in new }
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/script"),
                                  ["-qec", "stty cols \(columns) rows 30; \(command); echo \"[exit $?]\"", "/dev/null"],
                                  environment: environment, currentDirectory: work, timeout: 60)
        return r.stdoutText
    }

    func prefetchCommand(_ list: URL?, _ extra: String = "") -> String {
        "'\(E2EPaths.binary!.path)' prefetch '\(list?.path ?? "-")' -j 2 -s 50 --cache-dir '\(cacheDir.path)' \(extra)"
    }

    /// The bar's frames: what each carriage return starts, without escape codes.
    static func frames(_ screen: String) -> [String] {
        let plain = screen.replacingOccurrences(of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
        return plain.components(separatedBy: "\r").flatMap { $0.components(separatedBy: "\n") }
            .filter { $0.contains("/13") || $0.contains(" done") }
    }

    func testBarFitsA40And120ColumnTerminal() throws {
        var widest: [Int: Int] = [:]
        for columns in [40, 120] {
            try? FileManager.default.removeItem(at: cacheDir)
            let screen = try onTerminal(prefetchCommand(try slowList()), columns: columns, env: ["TERM": "xterm", "NO_COLOR": ""])
            XCTAssertTrue(screen.contains("[exit 1]"), screen)
            let frames = Self.frames(screen)
            XCTAssertGreaterThanOrEqual(frames.count, 2, "the bar was drawn:\n\(screen.debugDescription)")
            for frame in frames {
                XCTAssertLessThan(frame.trimmingCharacters(in: .whitespaces).count, columns, "a frame wider than \(columns) columns wraps: '\(frame)'")
            }
            XCTAssertTrue(frames.contains { $0.contains("13/13") }, "the last frame counts every source: \(frames)")
            // One width through the run: the bar ends in one column in every frame (it was 11 to 24
            // wide at 40 columns as parts came and went).
            let ends = Set(frames.compactMap { frame in frame.firstIndex(of: "]").map { frame.distance(from: frame.startIndex, to: $0) } })
            XCTAssertEqual(ends.count, 1, "\(columns) columns: the bar ends in one column: \(ends) \(frames)")
            widest[columns] = frames.map(\.count).max() ?? 0
            XCTAssertTrue(screen.contains("\u{1B}[K"), "a terminal line is erased with ESC [ K")
        }
        XCTAssertGreaterThan(widest[120] ?? 0, 60, "a wide terminal gets a wide bar")
    }

    func testNoStaleLinesOnA40ColumnScreen() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else { throw XCTSkip("tmux is needed") }
        let socket = "imgfetch-e2e-\(getpid())-\(UUID().uuidString.prefix(8))"
        func tmux(_ args: [String]) -> RunResult {
            ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/tmux"), ["-L", socket, "-f", "/dev/null"] + args,
                              environment: Imgfetch.baseEnvironment(home: home), currentDirectory: work, timeout: 20)
        }
        defer { _ = tmux(["kill-server"]) }
        // The tmux server it starts keeps every descriptor it inherits, and the runner waits until
        // all of them are closed: give it none but /dev/null.
        let session = ["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "40", "-y", "30",
                       prefetchCommand(try slowList()) + "; echo \"[exit $?]\"; sleep 30"]
        let quoted = session.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let closeAll = "for fd in $(ls /proc/$$/fd); do [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done; "
        let started = ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), ["-c", closeAll + quoted + " </dev/null >/dev/null 2>&1"],
                                        environment: Imgfetch.baseEnvironment(home: home), currentDirectory: work, timeout: 20)
        XCTAssertEqual(started.status, 0, started.stderr)
        var screen = ""
        for _ in 0..<100 {
            Thread.sleep(forTimeInterval: 0.2)
            screen = tmux(["capture-pane", "-p"]).stdoutText
            if screen.contains("[exit") { break }
        }
        XCTAssertTrue(screen.contains("[exit 1]"), screen)
        let lines = screen.split(separator: "\n").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        XCTAssertFalse(lines.contains { $0.contains("13") && ($0.contains("[=") || $0.contains("ETA")) }, "a stale bar is left on the screen:\n\(screen)")
        XCTAssertLessThanOrEqual(lines.count, 7, "only the error, the summary and the exit status:\n\(screen)")
    }

    func testDumbTerminalGetsPlainText() throws {
        let screen = try onTerminal(prefetchCommand(try slowList()), columns: 40, env: ["TERM": "dumb"])
        XCTAssertTrue(screen.contains("[exit 1]"), screen)
        XCTAssertFalse(screen.contains("\u{1B}"), "no escape codes with TERM=dumb:\n\(screen.debugDescription)")
        XCTAssertGreaterThanOrEqual(Self.frames(screen).count, 2, "the bar is still drawn:\n\(screen.debugDescription)")
        for frame in Self.frames(screen) { XCTAssertLessThan(frame.count, 40, "'\(frame)'") }
    }

    func testFailuresAreRedUnlessNoColor() throws {
        let colored = try onTerminal(prefetchCommand(try slowList()), columns: 80, env: ["TERM": "xterm", "NO_COLOR": ""])
        XCTAssertTrue(colored.contains("\u{1B}[31m"), "the count of failures is red:\n\(colored.debugDescription)")
        try? FileManager.default.removeItem(at: cacheDir)
        let plain = try onTerminal(prefetchCommand(try slowList()), columns: 80, env: ["TERM": "xterm", "NO_COLOR": "1"])
        XCTAssertTrue(plain.contains("1 failed"), plain)
        XCTAssertFalse(plain.contains("\u{1B}[31m"), "NO_COLOR: no colour:\n\(plain.debugDescription)")
    }

    func testBarWithoutATotalCountsWhatIsDone() throws {
        let list = try slowList()
        let screen = try onTerminal("cat '\(list.path)' | " + prefetchCommand(nil), columns: 40, env: ["TERM": "xterm"])
        XCTAssertTrue(screen.contains("[exit 1]"), screen)
        let frames = Self.frames(screen)
        XCTAssertTrue(frames.contains { $0.contains("done") } || frames.contains { $0.contains("/13") }, "frames: \(frames)\n\(screen.debugDescription)")
        for frame in frames { XCTAssertLessThan(frame.trimmingCharacters(in: .whitespaces).count, 40, "'\(frame)'") }
    }
}
