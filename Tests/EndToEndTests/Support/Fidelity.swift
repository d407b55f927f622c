import Foundation
import XCTest

/// The measures of `scripts/fidelity.py` (ΔE00, PSNR, moiré, metadata blocks), run with Debian's
/// python3 (python3-numpy, python3-pil, installed by scripts/install-deps.sh), and `vipsthumbnail`.
enum Fidelity {
    static let script = E2EPaths.testsDir.deletingLastPathComponent().appendingPathComponent("scripts/fidelity.py")
    static let python = URL(fileURLWithPath: "/usr/bin/python3")

    struct Failed: Error, CustomStringConvertible { var description: String }

    /// `fidelity.py ARGS`: its one JSON object.
    static func measure(_ args: [String]) throws -> [String: Any] {
        let r = ProcessRunner.run(python, [script.path] + args, environment: ProcessInfo.processInfo.environment, timeout: 120)
        guard r.status == 0, let object = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any] else {
            throw Failed(description: "fidelity.py \(args.joined(separator: " ")) failed: \(r.stderr)")
        }
        return object
    }

    /// Runs Python code (numpy and PIL available), for fixtures made in a test.
    static func python(_ code: String) throws {
        let r = ProcessRunner.run(python, ["-c", code], environment: ProcessInfo.processInfo.environment, timeout: 60)
        guard r.status == 0 else { throw Failed(description: "python failed: \(r.stderr)") }
    }

    /// `vipsthumbnail ARGS`, as the reference for sizes. Its `-o NAME` must be an absolute path:
    /// a relative one is written next to the input (into Tests/Fixtures).
    static func vipsthumbnail(_ args: [String]) throws {
        if let i = args.firstIndex(of: "-o"), i + 1 < args.count, !args[i + 1].hasPrefix("/") {
            throw Failed(description: "vipsthumbnail -o \(args[i + 1]): give an absolute path (it writes next to its input otherwise)")
        }
        _ = try vipsTool("vipsthumbnail", args)
    }

    /// `exiftool -j -G0 FILE`'s one object ("EXIF:Copyright", "GPS:...", ...), installed by
    /// scripts/install-deps.sh (libimage-exiftool-perl).
    static func exiftool(_ file: URL) throws -> [String: Any] {
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-j", "-G0", "-n", file.path],
                                  environment: ProcessInfo.processInfo.environment, timeout: 60)
        guard r.status == 0, let list = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]], let first = list.first else {
            throw Failed(description: "exiftool \(file.path) failed (libimage-exiftool-perl; scripts/install-deps.sh installs it): \(r.stderr)")
        }
        return first
    }

    /// `exiftool ARGS` (writing tags into a fixture made in a test).
    static func exiftoolWrite(_ args: [String]) throws {
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/exiftool"), args, environment: ProcessInfo.processInfo.environment, timeout: 60)
        guard r.status == 0 else { throw Failed(description: "exiftool \(args) failed: \(r.stderr)") }
    }

    /// `vipsheader -f FIELD FILE`: one metadata field as libvips reads it.
    static func vipsheader(_ field: String, _ file: URL) throws -> String {
        try vipsTool("vipsheader", ["-f", field, file.path]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func vipsTool(_ name: String, _ args: [String]) throws -> String {
        let exe = URL(fileURLWithPath: "/usr/bin/" + name)
        guard FileManager.default.isExecutableFile(atPath: exe.path) else {
            throw Failed(description: "\(name) is missing (libvips-tools; scripts/install-deps.sh installs it)")
        }
        let r = ProcessRunner.run(exe, args, environment: ProcessInfo.processInfo.environment, timeout: 60)
        guard r.status == 0 else { throw Failed(description: "\(name) \(args) failed: \(r.stderr)") }
        return r.stdoutText
    }
}
