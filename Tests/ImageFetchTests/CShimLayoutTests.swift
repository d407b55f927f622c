import Foundation
import XCTest

/// The C shims are drawn without circles: when one file calls a function another file defines,
/// that other file never calls back into it, however many files lie between (shared helpers live in
/// a file both use, as vips_common.c does for the libvips shim).
final class CShimLayoutTests: XCTestCase {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")
    /// A function definition that is not static: a type, its name, its parameters, then `{`.
    static let definition = try! NSRegularExpression(pattern: #"^([A-Za-z_][\w \*]*?)\b(\w+)\([^;{]*?\)\s*\{"#, options: .anchorsMatchLines)
    static let call = try! NSRegularExpression(pattern: #"\b(\w+)\("#)

    func testNoCShimFileCallsBackIntoAFileThatCallsIt() throws {
        let shims = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { $0.hasPrefix("C") }.sorted()
        XCTAssertTrue(shims.contains("CVips"), "the shims are found")
        for shim in shims {
            let dir = Self.sources.appendingPathComponent(shim)
            let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".c") }.sorted()
            var text: [String: String] = [:]
            var owner: [String: String] = [:]
            for file in files {
                let source = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                text[file] = source
                for m in Self.definition.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                    guard let type = Range(m.range(at: 1), in: source), let name = Range(m.range(at: 2), in: source),
                          !source[type].hasPrefix("static") else { continue }
                    owner[String(source[name])] = owner[String(source[name])] ?? file
                }
            }
            var calls: [String: Set<String>] = [:]
            for (file, source) in text {
                let names = Self.call.matches(in: source, range: NSRange(source.startIndex..., in: source))
                    .compactMap { Range($0.range(at: 1), in: source).map { String(source[$0]) } }
                calls[file] = Set(names.compactMap { owner[$0] }.filter { $0 != file })
            }
            if shim == "CVips" { XCTAssertEqual(calls["vips_shim.c"]?.contains("vips_outputs.c"), true, "the scan sees calls") }
            for file in files {
                if let circle = Self.circle(from: file, calls) {
                    XCTFail("\(shim): a file circle: \(circle.joined(separator: " -> "))")
                }
            }
        }
    }

    /// A path of calls from `start` back to itself, if there is one.
    static func circle(from start: String, _ calls: [String: Set<String>]) -> [String]? {
        var stack = [[start]]
        var seen: Set<String> = []
        while let path = stack.popLast() {
            for next in (calls[path.last!] ?? []).sorted() {
                if next == start { return path + [next] }
                if seen.insert(next).inserted { stack.append(path + [next]) }
            }
        }
        return nil
    }
}
