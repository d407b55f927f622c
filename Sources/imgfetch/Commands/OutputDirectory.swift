import ArgumentKit
import ImageFetch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `--output-dir DIR [--name TEMPLATE] [--create-dirs]` of `get` and `prefetch`: each delivered
/// image is also written to DIR/NAME, atomically (`FileSystem.writeOutput`). Names are claimed in
/// list order (`OutputNames`): a line's file is written, and its result reported, once every
/// earlier line is done (its image waits in memory until then), so the names depend on the list
/// only. A file that exists from before the run is replaced; one written by this run never is.
final class OutputDirectory: Sendable {
    let directory: String
    let template: OutputTemplate
    let createDirs: Bool
    let names = OutputNames()

    /// Lines issued and not yet reported, in list order, with their own template (`name=`) and,
    /// once done, their completion.
    private struct Pending {
        var line: Int
        var template: OutputTemplate?
        var completion: Prefetcher.Completion?
    }
    private let queue = Mutex<[Pending]>([])
    /// Held while a drained line is written and reported: one at a time, in order.
    private let writing = Mutex(())

    init(directory: String, template: OutputTemplate, createDirs: Bool) {
        self.directory = directory
        self.template = template
        self.createDirs = createDirs
    }

    /// The `--output-dir`, `--name` and `--create-dirs` of `parsed`; nil without `--output-dir`.
    /// The directory must exist unless `--create-dirs` (then it is made now).
    static func from(_ parsed: ParsedCommand) throws(UsageError) -> OutputDirectory? {
        guard let dir = parsed.value("output-dir") else {
            if parsed.value("name") != nil { throw parsed.error("--name needs --output-dir") }
            return nil
        }
        guard !dir.isEmpty else { throw parsed.error("invalid value '' for '--output-dir': expected a directory") }
        let template: OutputTemplate
        do { template = try OutputTemplate(parsed.value("name") ?? OutputTemplate.defaultText) } catch {
            throw parsed.error("invalid value for '--name': \(error.message)")
        }
        let create = parsed.flag("create-dirs")
        if create {
            do { try FileSystem.makeDirectories(dir) } catch { throw parsed.error("cannot create --output-dir: \(error.message)") }
        } else if !FileSystem.isDirectory(dir) {
            throw parsed.error("invalid value '\(ListParser.quoted(dir, limit: 200, marks: false))' for '--output-dir': not a directory (--create-dirs makes it)")
        }
        return OutputDirectory(directory: dir, template: template, createDirs: create)
    }

    /// Records that `line` was issued (call in list order), with its `name=` template if any.
    func issue(line: Int, template: OutputTemplate?) {
        queue.withLock { $0.append(Pending(line: line, template: template)) }
    }

    /// Marks `completion` done, then writes and reports (with `report`) every line at the head of
    /// the queue that is done, in order. `report` gets the completion (a failed write turns a
    /// delivered line into a `file_error` failure) and where its file went.
    func complete(_ completion: Prefetcher.Completion, report: (Prefetcher.Completion, String?) -> Void) {
        queue.withLock { q in
            if let i = q.firstIndex(where: { $0.line == completion.line && $0.completion == nil }) { q[i].completion = completion }
        }
        drain(all: false, report: report)
    }

    /// Reports every line left (at the end of a run, when an interrupt left earlier lines undone).
    func finish(report: (Prefetcher.Completion, String?) -> Void) { drain(all: true, report: report) }

    private func drain(all: Bool, report: (Prefetcher.Completion, String?) -> Void) {
        writing.withLock { _ in
            while let next = queue.withLock({ q -> Pending? in
                while let head = q.first, all || head.completion != nil {
                    q.removeFirst()
                    if head.completion != nil { return head }
                }
                return nil
            }) {
                guard let completion = next.completion else { continue }
                let (done, file) = write(completion, template: next.template ?? template)
                report(done, file)
            }
        }
    }

    /// Writes a delivered image; the completion as reported and the file's path (nil when none).
    func write(_ completion: Prefetcher.Completion, template: OutputTemplate) -> (Prefetcher.Completion, String?) {
        guard case .success(let result) = completion.outcome else { return (completion, nil) }
        switch write(result, source: completion.request.source, line: completion.line, template: template) {
        case .success(let path):
            return (completion, path)
        case .failure(let failure):
            var failed = completion
            failed.outcome = .failure(failure)
            return (failed, nil)
        }
    }

    /// Writes `result` under the name `template` gives it (claimed for `line`): its path, or the
    /// failure (`file_error`) the line becomes.
    func write(_ result: ImageResult, source: Source, line: Int, template: OutputTemplate? = nil) -> Result<String, RetrievalFailure> {
        let values = OutputTemplate.Values(source: source, result: result, line: line)
        let name = names.claim((template ?? self.template).render(values), line: line)
        let path = (directory.hasSuffix("/") ? directory : directory + "/") + name
        do {
            // Every directory on the way is opened from the one before, never through a link planted
            // in DIR (it would send the file outside), and the name is replaced, never written through.
            try FileSystem.writeOutput(result.image.bytes, below: directory, name, createDirectories: createDirs)
            return .success(path)
        } catch {
            let message = "cannot write \(ListParser.quoted(path, limit: 300, marks: false)): \(error.message)"
            return .failure(RetrievalFailure(error: .fileError(message), attempts: result.attempts,
                                             milliseconds: result.milliseconds, key: result.key))
        }
    }
}
