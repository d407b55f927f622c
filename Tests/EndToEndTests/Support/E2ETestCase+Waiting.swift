import Foundation
import XCTest

extension E2ETestCase {
    /// Waits for an event a test asserts on (a server's log line, a file, a record), never a fixed
    /// time: checks `condition` every 20 ms until it holds, for at most `timeout` seconds (generous:
    /// the suite runs on loaded machines). Fails the test naming `what` if it never held; returns
    /// whether it did. The assertions after it still say what was seen.
    @discardableResult
    func waitFor(_ what: @autoclosure () -> String, timeout: TimeInterval = 20,
                 file: StaticString = #filePath, line: UInt = #line,
                 _ condition: () throws -> Bool) rethrows -> Bool {
        if try Waiting.until(timeout: timeout, condition) { return true }
        XCTFail("waited \(Int(timeout)) s for \(what())", file: file, line: line)
        return false
    }
}

/// The one wait loop of the end-to-end tests (`waitFor`, and the test servers' own waits).
enum Waiting {
    /// Checks `condition` every 20 ms until it holds (true) or `timeout` seconds have passed (false).
    static func until(timeout: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if try condition() { return true }
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
}
