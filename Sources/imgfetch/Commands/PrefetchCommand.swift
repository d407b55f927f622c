import ArgumentKit
import ImageFetch

/// `imgfetch prefetch [options] [LIST | -]`: warm the cache from a list, concurrently and politely.
/// The list's lines go to the run (`FetchRun`) as items (`ListItems`); this command reads the run's
/// one stream of events on one task (`PrefetchRun`: counts, order, output files, progress and
/// records need no lock) and stops it with one `cancel()` (a signal, a closed stdout).
enum PrefetchCommand {
    /// The progress bar: `--progress` or a terminal, never with `--no-progress` or `--quiet`.
    static func showsProgress(_ parsed: ParsedCommand, quiet: Bool) -> Bool {
        !parsed[OptionKeys.noProgress] && !quiet && (parsed[OptionKeys.progress] || Console.stderrIsTerminal)
    }

    static func run(_ parsed: ParsedCommand) async throws(UsageError) -> ExitCode {
        // First: a signal from here on is the run's to answer (its summary, --save-remaining), not
        // an exit that leaves nothing; what it stops is given once the work exists (`whenStopped`).
        let interrupted = Interrupts.onSignal()
        let job = try Job(parsed)
        if let place = job.shardPlace, try alreadyDone(place, quiet: job.settings.quiet) {
            return interrupted.signal.map(ExitCode.init(signal:)) ?? .ok
        }
        let reader = try job.openList()
        // Counted ahead only in a regular file: counting a pipe or FIFO would read it away.
        let progress = showsProgress(parsed, quiet: job.settings.quiet) ? ProgressBar(total: reader.countSources()) : nil
        let fetch = try Runs.start(job.settings, limits: job.limits, batch: true)
        defer { CookieJarFile.write(job.settings.network, engine: fetch.engine) }
        let started = FileSystem.monotonic()
        let events = fetch.events(for: job.items(reader))
        interrupted.whenStopped { _ in fetch.cancel() }
        let run = try job.report(reader, progress: progress, transfers: fetch.pipeline.activity.meter)
        // The bar's own timer: a live bar even while no result arrives (every transfer waiting for its retry).
        progress?.line.tick(every: 0.1) { fetch.wake() }
        for await event in events {
            switch event {
            case .result(let completion):
                if run.take(completion) { fetch.cancel() }   // stdout's reader went away (`| head -1`): as an interrupt
            case .notice(let notice): run.notices([notice])
            case .uploadWarning(let warning): run.uploadWarnings([warning])
            case .progress: run.refresh()
            }
        }
        progress?.line.stopTicking()
        run.drain()
        // Before exiting: the uploads still queued, at most --remote-timeout (none after an interrupt).
        let ending = await fetch.finish(uploadTimeout: interrupted.happened ? 0 : job.settings.remote?.timeout ?? 0)
        run.notices(ending.notices)
        run.uploadWarnings(ending.uploadWarnings)
        if let uploads = ending.uploads { run.uploads = uploads }
        return job.conclude(run, reader: reader, pipeline: fetch.pipeline, interrupted: interrupted,
                            ms: (FileSystem.monotonic() - started) * 1000)
    }
}
