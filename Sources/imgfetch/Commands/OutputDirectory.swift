import ArgumentKit
import ImageFetch
#if canImport(Glibc)
import Glibc
#endif

/// `--output-dir DIR [--name TEMPLATE] [--create-dirs]` of `get` and `prefetch`: each delivered
/// image is also written to DIR/NAME, atomically (`FileSystem.writeOutput`). Names are claimed in
/// the order `write` is called (`OutputNames`): prefetch calls it in list order (`PrefetchRun`), so
/// the names depend on the list only. A file that exists from before the run is replaced; one
/// written by this run never is. Used from one task only.
final class OutputDirectory {
    let directory: String
    let template: OutputTemplate
    let createDirs: Bool
    private var names = OutputNames()

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
