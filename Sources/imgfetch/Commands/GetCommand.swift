import ArgumentKit
import ImageFetch

/// `imgfetch get [options] SOURCE`: one retrieval, the image to stdout or `-o FILE`.
enum GetCommand {
    static func run(_ parsed: ParsedCommand) async throws(UsageError) -> ExitCode {
        let sourceTexts = parsed.positionalValues("SOURCE")
        let sourceText = sourceTexts.first ?? ""
        let output = parsed[OptionKeys.output]
        if let outputDir = try OutputDirectory.from(parsed) {
            if output != nil { throw UsageError("-o and --output-dir cannot be used together", commandPath: ["get"]) }
            return try await runMany(sourceTexts, parsed: parsed, outputDir: outputDir)
        }
        if sourceTexts.count > 1 {
            throw UsageError("several sources need --output-dir DIR (-o writes one file)", commandPath: ["get"])
        }
        var settings = try RequestOptions(parsed, outputPath: output)
        settings.politeness = try PolitenessSettings.from(parsed, settings: settings, robotsByDefault: false, dataset: false)
        settings.warnOfUnverifiedTLS()
        let source: Source
        do { source = try Source(parsing: sourceText) } catch {
            throw UsageError(error.message(naming: Source.abbreviated(sourceText)), commandPath: ["get"])
        }
        if settings.json && output == "-" {
            throw UsageError("--json prints records on stdout: give the image a file with -o FILE", commandPath: ["get"])
        }
        // Decide where the image goes before doing any work.
        let destination = try Destination.from(parsed, output: output, json: settings.json)

        let run = try Runs.start(settings, limits: try Runs.limits(settings), deferredScans: true)
        let pipeline = run.pipeline
        let interrupted = Interrupts.stopping(run)
        defer { CookieJarFile.write(settings.network, engine: run.engine) }
        let meter = FeedbackOptions.showsMeter(parsed, quiet: settings.quiet)
        let outcome = await GetFeedback.retrieve(settings.request(for: source), with: pipeline, meter: meter, quiet: settings.quiet)
        Report.lowDataDecision(settings)
        Report.politenessNotes(pipeline, settings: settings)
        if let signal = interrupted.signal { return ExitCode(signal: signal) }
        defer { BackgroundScan.startIfWanted(pipeline.cache) }
        switch outcome {
        case .failure(let failure):
            Report.failure(failure, source: source.description, settings: settings)
            return Report.exitCode(for: failure.error)
        case .success(var result):
            let (kept, problem) = destination.write(result.image.bytes)
            if let problem {
                Console.errorLine("\(source.description): \(problem)")
                return .failed
            }
            // The cache ends within its limit (another process's store may have left it over).
            result.evicted.add(pipeline.cache.fitLimit())
            // The image is out; its upload (if any) is waited for, its failure a warning of the record.
            if run.remote != nil, let timeout = settings.remote?.timeout {
                result.warnings += await run.finish(uploadTimeout: timeout).uploadWarnings
            }
            Report.success(result, settings: settings, kept: kept)
            // Within a stale-while-revalidate window: the image is out; now bring the entry up to date.
            if result.needsRevalidation {
                _ = await pipeline.revalidate(settings.request(for: source))
                await Report.finishUploads(run, settings: settings)
            }
            return result.cacheError == nil ? .ok : .cacheUnusable
        }
    }
}
