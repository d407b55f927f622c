import ArgumentKit
import Foundation
import XCTest
@testable import imgfetch

/// Every option a command's code reads (through `OptionKeys`, logged by a recording command) is one
/// its spec declares, as the user sees it in its --help: the same name, kind and value name. `get`
/// and `prefetch` share `RequestOptions`, `OutputDirectory`, the network and remote settings; the
/// cache commands run for real against an empty temporary cache.
final class OptionReadsTests: XCTestCase {
    var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "option-reads-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// No environment: no config file, no remote cache, no low-data mode from outside.
    static let environment: @Sendable (String) -> String? = { _ in nil }

    /// The command's option readers, run on `arguments` (the command's path first). Errors after the
    /// reads are expected (no source, no remote); what was read is what counts.
    func readers(_ path: [String]) -> (arguments: [String], read: (ParsedCommand) async -> Void)? {
        let env = Self.environment
        let cacheDir = ["--cache-dir", directory]
        switch path {
        case ["get"], ["prefetch"]:
            let more = ["--no-config", "--remote-cache", "http://127.0.0.1:9/cache/", "--output-dir", directory]
                + (path == ["get"] ? ["\(directory)/none.jpg"] : [])
            return (path + cacheDir + more, { parsed in
                _ = try? ConfigFile.apply(to: parsed, environment: env)
                ArgumentSecrets.blank(parsed)   // no -u: nothing to blank
                if let settings = try? RequestOptions(parsed, environment: env) {
                    _ = try? PolitenessSettings.from(parsed, settings: settings, robotsByDefault: path == ["prefetch"], dataset: false)
                }
                _ = try? OutputDirectory.from(parsed)
                if path == ["get"] {
                    _ = FeedbackOptions.showsMeter(parsed, quiet: false)
                    _ = try? GetCommand.Destination.from(parsed, output: "\(self.directory)/out.jpg", json: false)
                } else {
                    if let settings = try? RequestOptions(parsed, environment: env) { _ = try? Runs.limits(settings, batch: parsed) }
                    _ = PrefetchCommand.showsProgress(parsed, quiet: false)
                    _ = try? ShardSetting.from(parsed, environment: env)
                    _ = try? FeedbackOptions.saveFailedPath(parsed)
                    _ = try? FeedbackOptions.saveFailedPath(parsed, key: OptionKeys.saveRemaining)
                    _ = try? TableSettings.from(parsed, listPath: nil)
                    _ = try? PrefetchCommand.stallTimeout(parsed)
                    _ = try? ShardDirectory.from(parsed, shard: nil, listPath: nil, options: [])
                }
            })
        case ["cache", "scan"]:
            return (path + cacheDir, { parsed in _ = try? CacheCommands.sizeLimit(parsed) })
        case ["cache", "push"], ["cache", "pull"]:
            // Port 9 (discard) on 127.0.0.1: refused at once, after every option is read.
            return (path + cacheDir + ["--remote-cache", "http://127.0.0.1:9/cache/"], { parsed in
                _ = try? await CacheRemoteCommands.run(parsed)
            })
        case ["cache", "info"]:
            return (path + cacheDir + ["0123456789abcdef"], { parsed in _ = try? CacheCommands.run(parsed) })
        case ["cache", "rm"]:
            return (path + cacheDir + ["--older-than", "1d"], { parsed in _ = try? CacheCommands.run(parsed) })
        case ["cache", "gallery"]:
            return (path + cacheDir + ["-o", "\(directory)/gallery"], { parsed in _ = try? CacheCommands.run(parsed) })
        case ["cache", "sheet"]:
            return (path + cacheDir + ["-o", "\(directory)/sheet.jpg"], { parsed in _ = try? CacheCommands.run(parsed) })
        case let path where path.first == "cache" && path.count == 2:
            return (path + cacheDir, { parsed in _ = try? CacheCommands.run(parsed) })
        case ["completions"]:
            return (path + ["bash"], { parsed in _ = try? CompletionsCommand.run(parsed) })
        default:
            return nil
        }
    }

    /// What `read` read that the command's spec (with its ancestors' global options) does not
    /// declare, as `--NAME (kind, VALUE)`.
    static func undeclared(_ read: [OptionSpec], path: [String]) -> [String] {
        let chain = Specs.root.chain(for: path)
        let scope = chain.last!.options + chain.dropLast().flatMap { $0.options.filter(\.global) }
        return read.filter { spec in
            !scope.contains { $0.long == spec.long && $0.kind == spec.kind && $0.valueName == spec.valueName }
        }.map { "--\($0.long) (\($0.kind), \($0.valueName))" }
    }

    func testEveryCommandReadsOnlyTheOptionsItsSpecDeclares() async throws {
        var checked = 0
        for (path, spec) in Specs.root.allCommands() where spec.subcommands.isEmpty {
            guard let (arguments, read) = readers(path) else {
                XCTFail("no readers for \(path.joined(separator: " ")): add them to OptionReadsTests")
                continue
            }
            guard case .command(let parsed) = try Specs.root.parse(arguments) else { XCTFail("\(arguments)"); continue }
            let log = ReadLog()
            await read(parsed.recordingReads(into: log))
            XCTAssertEqual(Self.undeclared(log.specs, path: path), [], "\(path.joined(separator: " ")) reads options it does not declare")
            if !spec.options.isEmpty {
                XCTAssertFalse(log.specs.isEmpty, "\(path.joined(separator: " ")): its readers read nothing")
            }
            checked += 1
        }
        XCTAssertEqual(checked, 16, "every command but the groups (root, cache)")
    }

    /// The check sees a read of another command's option, and one of the same name said otherwise
    /// (`cache sheet --size S` read by `get`, whose `--size` is WxH).
    func testTheCheckReportsAnUndeclaredRead() throws {
        guard case .command(let parsed) = try Specs.root.parse(["get", "x"]) else { return XCTFail() }
        let log = ReadLog()
        let recording = parsed.recordingReads(into: log)
        _ = try recording[OptionKeys.jobs]
        _ = try recording[OptionKeys.sheetSize]
        _ = try recording[OptionKeys.retry]
        XCTAssertEqual(Self.undeclared(log.specs, path: ["get"]), ["--jobs (value, N)", "--size (value, S)"])
    }

    /// get and prefetch read (almost) every option they declare: the readers above are the code's.
    func testGetAndPrefetchReadersCoverTheirSpecs() async throws {
        for path in [["get"], ["prefetch"]] {
            let (arguments, read) = try XCTUnwrap(readers(path))
            guard case .command(let parsed) = try Specs.root.parse(arguments) else { return XCTFail() }
            let log = ReadLog()
            await read(parsed.recordingReads(into: log))
            let declared = Set(Specs.root.chain(for: path).last!.options.map(\.long))
            // Read in GetCommand.run itself: -o.
            let unread = declared.subtracting(log.specs.map(\.long)).subtracting(["output"])
            XCTAssertEqual(unread.sorted(), [], "\(path): declared, never read by its readers")
        }
    }
}

/// The specs a command's code read, each once, in order (a test's observer of `observingReads`).
final class ReadLog: @unchecked Sendable {   // @unchecked: `specs` only under `lock`
    private let lock = NSLock()
    private var read: [OptionSpec] = []

    var specs: [OptionSpec] { lock.withLock { read } }

    func record(_ spec: OptionSpec) {
        lock.withLock { if !read.contains(spec) { read.append(spec) } }
    }
}

extension ParsedCommand {
    /// This command, logging every key read into `log`.
    func recordingReads(into log: ReadLog) -> ParsedCommand {
        observingReads { log.record($0) }
    }
}
