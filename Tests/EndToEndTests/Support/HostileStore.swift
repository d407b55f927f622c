import Foundation

/// Tests/Support/hostile_store.py: a remote cache store that misbehaves in one way (`mode`, see the
/// script), serving from a directory of its own and logging every request line.
final class HostileStore {
    let directory: URL
    private let script: PortReportingScript

    init(_ mode: String, prepare: (URL) throws -> Void = { _ in }) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try prepare(directory)
        script = try PortReportingScript(E2EPaths.testsDir.appendingPathComponent("Support/hostile_store.py"), [mode, directory.path])
    }

    var endpoint: String { "http://127.0.0.1:\(script.port)" }

    func url(_ path: String) -> String { endpoint + path }

    /// The request lines received so far.
    func requests() -> [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("requests.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    func stop() {
        script.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
