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
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if try condition() { return true }
            if Date() >= deadline { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        XCTFail("waited \(Int(timeout)) s for \(what())", file: file, line: line)
        return false
    }
}
