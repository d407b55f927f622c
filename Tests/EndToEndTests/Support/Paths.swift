import Foundation
import XCTest

/// Where the end-to-end tests find the repository's fixtures, the test server script and the
/// built `imgfetch` executable.
enum E2EPaths {
    /// `Tests/` of the package, derived from this source file's location
    /// (`Tests/EndToEndTests/Support/Paths.swift`).
    static let testsDir: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // EndToEndTests
        .deletingLastPathComponent()  // Tests

    static let fixturesDir: URL = testsDir.appendingPathComponent("Fixtures", isDirectory: true)
    static let serverScript: URL = testsDir.appendingPathComponent("Support/e2e_server.py")
    static let proxyScript: URL = testsDir.appendingPathComponent("Support/connect_proxy.py")
    static let rawServerScript: URL = testsDir.appendingPathComponent("Support/raw_http_server.py")

    static func fixture(_ name: String) -> URL {
        fixturesDir.appendingPathComponent(name)
    }

    static func fixtureData(_ name: String) throws -> Data {
        try Data(contentsOf: fixture(name))
    }

    /// The `imgfetch` executable built next to the test bundle, or `nil`.
    /// `IMGFETCH_E2E_BINARY` overrides the search.
    static var binary: URL? { located.url }

    /// Every place that was searched, for the failure message.
    static var searched: [String] { located.searched }

    private static let located: (url: URL?, searched: [String]) = locateBinary()

    private static func locateBinary() -> (url: URL?, searched: [String]) {
        let fm = FileManager.default
        var searched: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["IMGFETCH_E2E_BINARY"], !explicit.isEmpty {
            return (isExecutableFile(explicit) ? URL(fileURLWithPath: explicit) : nil, [explicit])
        }
        var dirs: [URL] = []
        // Linux: the .xctest is an executable in .build/<config>/ and Bundle.main points at its
        // directory; macOS: the .xctest is a bundle directory in .build/<config>/.
        for bundle in [Bundle.main, Bundle(for: E2EBundleToken.self)] {
            dirs.append(bundle.bundleURL)
            dirs.append(bundle.bundleURL.deletingLastPathComponent())
            if let exe = bundle.executableURL {
                dirs.append(exe.deletingLastPathComponent())
            }
        }
        if let arg0 = CommandLine.arguments.first, !arg0.isEmpty {
            let url = URL(fileURLWithPath: arg0, relativeTo: URL(fileURLWithPath: fm.currentDirectoryPath))
                .standardizedFileURL.resolvingSymlinksInPath()
            dirs.append(url.deletingLastPathComponent())
            dirs.append(url.deletingLastPathComponent().deletingLastPathComponent())
        }
        var seen = Set<String>()
        for dir in dirs {
            let candidate = dir.standardizedFileURL.appendingPathComponent("imgfetch").path
            guard seen.insert(candidate).inserted else { continue }
            searched.append(candidate)
            if isExecutableFile(candidate) { return (URL(fileURLWithPath: candidate), searched) }
        }
        return (nil, searched)
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir)
            && !isDir.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }
}

private final class E2EBundleToken {}
