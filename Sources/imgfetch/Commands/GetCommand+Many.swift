import ArgumentKit
import ImageFetch

extension GetCommand {
    /// `get SOURCE... --output-dir DIR`: one retrieval after the other in one process, each image
    /// written to DIR (names as prefetch's, {line} = the source's position). Exit code: when any
    /// failed, the class every failure shares (`FailureClass`: 3, 5, 6, 7) else 1; else 4 after a
    /// cache error, else 0.
    static func runMany(_ texts: [String], parsed: ParsedCommand, outputDir: OutputDirectory) async throws(UsageError) -> ExitCode {
        var settings = try RequestOptions(parsed)
        settings.politeness = try PolitenessSettings.from(parsed, settings: settings, robotsByDefault: false, dataset: false)
        settings.warnOfUnverifiedTLS()
        var sources: [Source] = []
        for text in texts {
            do { sources.append(try Source(parsing: text)) } catch {
                throw UsageError("\(Source.abbreviated(text)): \(error.message)")
            }
        }
        let run = try Runs.start(settings, limits: try Runs.limits(settings), deferredScans: true)
        let (pipeline, remote) = (run.pipeline, run.remote)
        let interrupted = Interrupts.stopping(run)
        defer { CookieJarFile.write(settings.network, engine: run.engine) }
        defer { BackgroundScan.startIfWanted(pipeline.cache) }
        var failures: [FetchError] = [], cacheErrors = 0
        let meter = FeedbackOptions.showsMeter(parsed, quiet: settings.quiet)
        for (index, source) in sources.enumerated() {
            let outcome = await GetFeedback.retrieve(settings.request(for: source), with: pipeline, meter: meter, quiet: settings.quiet)
            if let signal = interrupted.signal { return ExitCode(signal: signal) }
            switch outcome.flatMap({ result in outputDir.write(result, source: source, line: index + 1).map { (result, $0) } }) {
            case .failure(let failure):
                Report.failure(failure, source: source.description, settings: settings)
                failures.append(failure.error)
            case .success(let (result, file)):
                Report.success(result, settings: settings, file: file.path, kept: file.kept)
                if result.cacheError != nil { cacheErrors += 1 }
            }
            // Uploads that failed meanwhile: a warning line each, as they come.
            if let remote { Report.warnings(await remote.uploader.takeWarnings(), settings: settings) }
        }
        await Report.finishUploads(run, settings: settings)
        Report.lowDataDecision(settings)
        Report.politenessNotes(pipeline, settings: settings)
        pipeline.cache.fitLimit()
        if !failures.isEmpty { return FailureClass.exitCode(for: failures) }
        return cacheErrors > 0 ? .cacheUnusable : .ok
    }
}
