import Foundation
import XCTest

/// docs/THREADS.md names every type (Swift) or file (C) that holds a lock, an atomic, an actor, a
/// semaphore or a C mutex/rwlock/condvar: one added without its line on the page fails here.
final class ThreadsPageTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// What makes shared state in Swift: the project's `Lock`, `Mutex`, `NSLock`, an `Atomic`, an
    /// actor, a semaphore.
    static let swiftMarks = try! NSRegularExpression(pattern: #"\bLock[(<]|\bMutex\b|\bNSLock\b|\bAtomic<|\bactor\s+\w+|DispatchSemaphore"#)
    /// ... and in C: pthread mutexes, rwlocks and condition variables, C11 atomics, builtins.
    static let cMarks = try! NSRegularExpression(pattern: #"pthread_(mutex|rwlock|cond)_|\b_Atomic\b|\batomic_\w+|__atomic_|__sync_"#)
    /// A top-level declaration: the type a line below it belongs to.
    static let declaration = try! NSRegularExpression(
        pattern: #"^(?:(?:public|private|fileprivate|internal|package|final|nonisolated)\s+)*(?:class|struct|actor|enum|extension)\s+(\w+)"#)
    static let actor = try! NSRegularExpression(pattern: #"\bactor\s+(\w+)"#)

    func testThePageNamesEveryHolderOfALockAnAtomicOrAnActor() throws {
        let page = try String(contentsOf: Self.repository.appendingPathComponent("docs/THREADS.md"), encoding: .utf8)
        let holders = try Self.holders()
        XCTAssertTrue(holders.contains { $0.name == "vips_errors.c" }, "the scan sees C files (vips_errors.c's rwlock)")
        XCTAssertTrue(holders.contains { $0.name == "RateLimiter" }, "the scan sees Swift atomics (RateLimiter's next slot)")
        XCTAssertTrue(holders.contains { $0.name == "ByteBudget" }, "the scan sees actors")
        for holder in holders where !Self.names(page, holder.name) {
            XCTFail("docs/THREADS.md does not name \(holder.name) (\(holder.file): \(holder.line.trimmingCharacters(in: .whitespaces)))")
        }
    }

    /// Whether `page` has `name` as a whole word.
    static func names(_ page: String, _ name: String) -> Bool {
        let word = try! NSRegularExpression(pattern: #"(?<![\w])"# + NSRegularExpression.escapedPattern(for: name) + #"(?![\w])"#)
        return word.firstMatch(in: page, range: NSRange(page.startIndex..., in: page)) != nil
    }

    /// Every holder in Sources: a Swift file's top-level type (or the actor declared), a C file's name.
    static func holders() throws -> [(name: String, file: String, line: String)] {
        let sources = repository.appendingPathComponent("Sources").path
        guard let walk = FileManager.default.enumerator(atPath: sources) else { throw CocoaError(.fileNoSuchFile) }
        var found: [(name: String, file: String, line: String)] = []
        var seen = Set<String>()
        for case let path as String in walk {
            let isC = path.hasSuffix(".c") || path.hasSuffix(".h")
            guard isC || path.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: sources + "/" + path, encoding: .utf8)
            var type = (path as NSString).lastPathComponent
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") || code.hasPrefix("*") || code.hasPrefix("/*") { continue }
                if !isC, let name = capture(declaration, line) { type = name }
                guard match(isC ? cMarks : swiftMarks, line) else { continue }
                let name = isC ? (path as NSString).lastPathComponent : capture(actor, line) ?? type
                if seen.insert(name).inserted { found.append((name, "Sources/" + path, line)) }
            }
        }
        return found
    }

    static func match(_ regex: NSRegularExpression, _ line: String) -> Bool {
        regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
    }

    static func capture(_ regex: NSRegularExpression, _ line: String) -> String? {
        guard let m = regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
              let range = Range(m.range(at: 1), in: line) else { return nil }
        return String(line[range])
    }
}
