import ArgumentKit
import Foundation
import XCTest

/// `OptionKey`: one declaration gives the spec (help, completions, synopsis) and the typed read.
final class OptionKeyTests: XCTestCase {
    enum Keys {
        static let json: FlagKey = .flag("json", short: "j", help: "Records.")
        static let output: TextKey = .value("output", short: "o", valueName: "FILE", help: "Where.", completion: .file)
        static let alt: ListKey = .repeated("alt", valueName: "SOURCE", help: "Another.")
        static let lowData: TextKey = .flagOrValue("low-data", valueName: "auto", help: "Low data.", completion: .choices(["auto"]))
        static let jobs: ValueKey<Int> = .int("jobs", valueName: "N", help: "At once.", defaultDescription: "8", range: 1...256)
        static let rate: ValueKey<Double> = .double("rate", valueName: "PER_SECOND", help: "Requests a second.", range: 0.001...100)
        static let maxBytes: ValueKey<Int64> = .value("max-bytes", valueName: "SIZE", help: "Largest.", parser: ValueParsers.byteSize)
    }

    static let spec = CommandSpec(name: "tool", subcommands: [
        CommandSpec(name: "run", options: OptionSpec.list(Keys.json, Keys.output, Keys.alt, Keys.lowData, Keys.jobs, Keys.rate, Keys.maxBytes)),
    ])

    private func parsed(_ arguments: [String]) throws -> ParsedCommand {
        guard case .command(let command) = try Self.spec.parse(["run"] + arguments) else { throw UsageError("not a command") }
        return command
    }

    func testTheSpecIsWhatTheFactoryDeclares() {
        XCTAssertEqual(Keys.json.spec, .flag("json", short: "j", help: "Records."))
        XCTAssertEqual(Keys.output.spec, .value("output", short: "o", valueName: "FILE", help: "Where.", completion: .file))
        XCTAssertEqual(Keys.alt.spec, OptionSpec(long: "alt", valueName: "SOURCE", help: "Another.", kind: .repeatedValue))
        XCTAssertEqual(Keys.lowData.spec.kind, .flagOrValue)
        XCTAssertEqual(Keys.jobs.spec, .value("jobs", valueName: "N", help: "At once.", defaultDescription: "8"))
        XCTAssertEqual(Keys.maxBytes.spec.kind, .value)
        XCTAssertEqual(Keys.jobs.defaulting("4").spec.defaultDescription, "4")
        XCTAssertEqual(Keys.json.helped("One object.").spec.help, "One object.")
        XCTAssertEqual(Keys.json.helped("One object.").spec.short, "j")
    }

    func testReadsAreTyped() throws {
        let command = try parsed(["-j", "-o", "x.jpg", "--alt", "a", "--alt", "b", "--jobs", "16", "--rate=2.5",
                                  "--max-bytes", "1K", "--low-data=auto"])
        XCTAssertTrue(command[Keys.json])
        XCTAssertEqual(command[Keys.output], "x.jpg")
        XCTAssertEqual(command[Keys.alt], ["a", "b"])
        XCTAssertEqual(try command[Keys.jobs], 16)
        XCTAssertEqual(try command[Keys.rate], 2.5)
        XCTAssertEqual(try command[Keys.maxBytes], 1024)
        XCTAssertEqual(command[Keys.lowData], "auto")
        XCTAssertTrue(command.given(Keys.lowData))

        let none = try parsed([])
        XCTAssertFalse(none[Keys.json])
        XCTAssertNil(none[Keys.output])
        XCTAssertEqual(none[Keys.alt], [])
        XCTAssertNil(try none[Keys.jobs])
        XCTAssertFalse(none.given(Keys.lowData))
        let bare = try parsed(["--low-data"])
        XCTAssertTrue(bare.given(Keys.lowData))
        XCTAssertNil(bare[Keys.lowData])
    }

    func testAMalformedValueIsTheParsersUsageError() throws {
        func error(_ arguments: [String], _ read: (ParsedCommand) throws(UsageError) -> Void) throws -> UsageError? {
            let command = try parsed(arguments)
            do throws(UsageError) {
                try read(command)
                return nil
            } catch {
                return error
            }
        }
        let jobs = try error(["--jobs", "0"]) { (c: ParsedCommand) throws(UsageError) in _ = try c[Keys.jobs] }
        XCTAssertEqual(jobs?.message, "invalid value '0' for '--jobs': expected an integer in 1...256")
        XCTAssertEqual(jobs?.commandPath, ["run"])
        XCTAssertEqual(try error(["--jobs", "x"]) { (c: ParsedCommand) throws(UsageError) in _ = try c[Keys.jobs] }?.message,
                       "invalid value 'x' for '--jobs': expected an integer")
        XCTAssertEqual(try error(["--rate", "1000"]) { (c: ParsedCommand) throws(UsageError) in _ = try c[Keys.rate] }?.message,
                       "invalid value '1000' for '--rate': expected a number in 0.001...100.0")
        XCTAssertEqual(try error(["--max-bytes", "10X"]) { (c: ParsedCommand) throws(UsageError) in _ = try c[Keys.maxBytes] }?.message,
                       "invalid value '10X' for '--max-bytes': expected a byte size such as 512K, 10M or 1G")
        XCTAssertNil(try error(["--jobs", "3"]) { (c: ParsedCommand) throws(UsageError) in _ = try c[Keys.jobs] })
    }

    func testARecordingCommandLogsEveryKeyReadOnce() throws {
        let log = ReadLog()
        let command = try parsed(["--jobs", "2"]).recordingReads(into: log)
        _ = command[Keys.json]
        _ = try command[Keys.jobs]
        _ = command[Keys.json]
        _ = command.given(Keys.lowData)
        _ = try command.withDefaults(parsed([]))[Keys.maxBytes]
        XCTAssertEqual(log.specs.map(\.long), ["json", "jobs", "low-data", "max-bytes"])
        _ = try parsed([])[Keys.output]
        XCTAssertEqual(log.specs.count, 4, "a command not recording logs nothing")
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
