import ArgumentKit
import ImageFetch
#if canImport(Glibc)
import Glibc
#endif

/// Where a delivered image went: `path`, and `kept` when `--no-clobber` found a file there and
/// left it (the record's `"output": "kept"`).
struct WrittenFile: Sendable, Equatable {
    var path: String
    var kept = false
}

/// `--output-dir DIR [--name TEMPLATE] [--create-dirs] [--no-clobber]` of `get` and `prefetch`:
/// each delivered image is also written to DIR/NAME, atomically (`FileSystem.writeOutput`). Names
/// are claimed in the order `write` is called (`OutputNames`): prefetch calls it in list order
/// (`PrefetchRun`), so the names depend on the list only. A file that exists from before the run is
/// replaced (kept with `--no-clobber`); one written by this run never is. The same image (same key)
/// under the same name again (identical list lines) is written once. Used from one task only.
final class OutputDirectory {
    let directory: String
    let template: OutputTemplate
    let createDirs: Bool
    let noClobber: Bool
    private var names = OutputNames()
    /// The files written (or kept) in this run, by the name rendered and the image's key.
    private var written: [WrittenName: WrittenFile] = [:]
    private struct WrittenName: Hashable { var rendered: String, key: String }

    init(directory: String, template: OutputTemplate, createDirs: Bool, noClobber: Bool = false) {
        self.directory = directory
        self.template = template
        self.createDirs = createDirs
        self.noClobber = noClobber
    }

    /// The `--output-dir`, `--name` and `--create-dirs` of `parsed`; nil without `--output-dir`.
    /// The directory must exist unless `--create-dirs` (then it is made now).
    static func from(_ parsed: ParsedCommand) throws(UsageError) -> OutputDirectory? {
        guard let dir = parsed[OptionKeys.outputDir] else {
            if parsed[OptionKeys.name] != nil { throw parsed.error("--name needs --output-dir") }
            return nil
        }
        guard !dir.isEmpty else { throw parsed.error("invalid value '' for '--output-dir': expected a directory") }
        let template: OutputTemplate
        do { template = try OutputTemplate(parsed[OptionKeys.name] ?? OutputTemplate.defaultText) } catch {
            throw parsed.error("invalid value for '--name': \(error.message)")
        }
        let create = parsed[OptionKeys.createDirs]
        if create {
            do { try FileSystem.makeDirectories(dir) } catch { throw parsed.error("cannot create --output-dir: \(error.message)") }
        } else if !FileSystem.isDirectory(dir) {
            throw parsed.error("invalid value '\(ListParser.quoted(dir, limit: 200, marks: false))' for '--output-dir': not a directory (--create-dirs makes it)")
        }
        return OutputDirectory(directory: dir, template: template, createDirs: create, noClobber: parsed[OptionKeys.noClobber])
    }

    /// Writes `result` under the name `template` gives it (claimed for `line`): its path, or the
    /// failure (`file_error`) the line becomes.
    func write(_ result: ImageResult, source: Source, line: Int, template: OutputTemplate? = nil) -> Result<WrittenFile, RetrievalFailure> {
        let values = OutputTemplate.Values(source: source, result: result, line: line)
        let rendered = (template ?? self.template).render(values)
        // The same image under the same name (an identical line): the file this run made is it.
        let identity = WrittenName(rendered: rendered, key: result.key.rawValue)
        if let same = written[identity] { return .success(same) }
        let name = names.claim(rendered, line: line)
        let path = (directory.hasSuffix("/") ? directory : directory + "/") + name
        do {
            // Every directory on the way is opened from the one before, never through a link planted
            // in DIR (it would send the file outside), and the name is replaced, never written through.
            let new = try FileSystem.writeOutput(result.image.bytes, below: directory, name, createDirectories: createDirs,
                                                 keepingExisting: noClobber)
            let file = WrittenFile(path: path, kept: !new)
            written[identity] = file
            return .success(file)
        } catch {
            let message = "cannot write \(ListParser.quoted(path, limit: 300, marks: false)): \(error.message)"
            return .failure(RetrievalFailure(error: .fileError(message), attempts: result.attempts,
                                             milliseconds: result.milliseconds, key: result.key))
        }
    }
}
