import ArgumentKit
import ImageFetch

extension GetCommand {
    /// `get SOURCE... --output-dir DIR`: one retrieval after the other in one process, each image
    /// written to DIR (names as prefetch's, {line} = the source's position). Exit code: 1 when any
    /// failed (3 when every failure is not-cached), else 4 after a cache error, else 0.
    static func runMany(_ texts: [String], parsed: ParsedCommand, outputDir: OutputDirectory) async throws(UsageError) -> ExitCode {
        let settings = try RequestOptions(parsed)
        settings.warnOfUnverifiedTLS()
        var sources: [Source] = []
        for text in texts {
            do { sources.append(try Source(parsing: text)) } catch {
                throw UsageError("\(Source.abbreviated(text)): \(error.message)")
            }
        }
        let remote = try settings.remote?.remoteCache()
        let pipeline = Pipelines.make(settings, remote: remote, deferredScans: true)
        defer { CookieJarFile.write(settings.network) }
        defer { BackgroundScan.startIfWanted(pipeline.cache, settings: settings) }
        var failed = 0, notCached = 0, cacheErrors = 0
        let meter = FeedbackOptions.showsMeter(parsed, quiet: settings.quiet)
        for (index, source) in sources.enumerated() {
            let outcome = await GetFeedback.retrieve(settings.request(for: source), with: pipeline, meter: meter, quiet: settings.quiet)
            switch outcome.flatMap({ result in outputDir.write(result, source: source, line: index + 1).map { (result, $0) } }) {
            case .failure(let failure):
                Report.failure(failure, source: source.description, settings: settings)
                failed += 1
                if failure.error.isNotCached { notCached += 1 }
            case .success(let (result, file)):
                Report.success(result, settings: settings, file: file.path, kept: file.kept)
                if result.cacheError != nil { cacheErrors += 1 }
            }
            // Uploads that failed meanwhile: a warning line each, as they come.
            if let remote { Report.warnings(await remote.uploader.takeWarnings(), settings: settings) }
        }
        if let remote, let timeout = settings.remote?.timeout {
            Report.warnings(await remote.uploader.finish(timeout: timeout), settings: settings)
        }
        Report.lowDataDecision(settings)
        pipeline.cache.fitLimit()
        if failed > 0 { return failed == notCached ? .notCached : .failed }
        return cacheErrors > 0 ? .cacheUnusable : .ok
    }
}
