import Foundation
import XCTest

/// Real photos for the low-data tests, made at test time (never committed): the repository's own
/// photos and Debian's GNOME wallpapers (gnome-backgrounds, WebP) as JPEG with `vips`, and their
/// progressive copies made with `jpegtran -progressive -copy none` (libjpeg-turbo-progs).
enum TestPhotos {
    /// The wallpapers used, of /usr/share/backgrounds/gnome.
    static let wallpapers = ["adwaita-d", "adwaita-l", "pixels-d", "pixels-l", "symbolic-d", "symbolic-l", "wood-l", "truchet-l"]
    static let fixtures = ["photo", "portrait", "detail"]

    static func tool(_ name: String) throws -> URL {
        for dir in ["/usr/bin", "/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return URL(fileURLWithPath: "\(dir)/\(name)")
        }
        throw XCTSkip("\(name) is needed (scripts/install-deps.sh installs it)")
    }

    static func run(_ tool: URL, _ args: [String], stdout: URL? = nil) throws {
        let process = Process()
        process.executableURL = tool
        process.arguments = args
        if let stdout {
            FileManager.default.createFile(atPath: stdout.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: stdout)
        }
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw XCTSkip("\(tool.lastPathComponent) \(args) failed") }
    }

    /// `NAME.jpg` (baseline) in `dir` for each wallpaper and fixture named; `progressive`: also
    /// `NAME-p.jpg`, its progressive copy. Returns the names.
    @discardableResult
    static func make(in dir: URL, wallpapers: [String] = wallpapers, fixtures: [String] = fixtures,
                     progressive: Bool = false) throws -> [String] {
        let vips = try tool("vips")
        let jpegtran = progressive ? try tool("jpegtran") : nil
        for name in wallpapers {
            let source = "/usr/share/backgrounds/gnome/\(name).webp"
            guard FileManager.default.fileExists(atPath: source) else { throw XCTSkip("\(source) is needed (gnome-backgrounds)") }
            try run(vips, ["copy", source, dir.appendingPathComponent("\(name).jpg").path + "[Q=90]"])
        }
        for name in fixtures {
            try FileManager.default.copyItem(at: E2EPaths.fixturesDir.appendingPathComponent("\(name).jpg"),
                                             to: dir.appendingPathComponent("\(name).jpg"))
        }
        let names = wallpapers + fixtures
        if let jpegtran {
            for name in names {
                try run(jpegtran, ["-progressive", "-copy", "none", dir.appendingPathComponent("\(name).jpg").path],
                        stdout: dir.appendingPathComponent("\(name)-p.jpg"))
            }
        }
        return names
    }
}
