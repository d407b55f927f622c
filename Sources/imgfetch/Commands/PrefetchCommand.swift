import ArgumentKit
import CSignals
import Dispatch
import ImageFetch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `imgfetch prefetch [options] [LIST | -]`: warm the cache from a list, concurrently and politely.
/// The list's lines go to the prefetcher as items (`ListItems`); this command reads the results
/// from one sequence, on one task (`PrefetchRun`): counts, order, output files, progress and
/// records need no lock.
enum PrefetchCommand {
    /// `-j`, `--rate`, `--per-host`.
    static func limits(_ parsed: ParsedCommand) throws(UsageError) -> Limits {
        var limits = Limits()
        limits.transfers = try parsed[OptionKeys.jobs] ?? 8
        limits.rate = try parsed[OptionKeys.rate]
        limits.perHost = try parsed[OptionKeys.perHost] ?? 0
        return limits
    }

    /// The progress bar: `--progress` or a terminal, never with `--no-progress` or `--quiet`.
    static func showsProgress(_ parsed: ParsedCommand, quiet: Bool) -> Bool {
        !parsed[OptionKeys.noProgress] && !quiet && (parsed[OptionKeys.progress] || Console.stderrIsTerminal)
    }

    static func run(_ parsed: ParsedCommand) async throws(UsageError) -> ExitCode {
        // First: a signal from here on is the run's to answer (its summary, --save-remaining), not
        // an exit that leaves nothing; what it stops is given once the work exists (`whenStopped`).
        let interrupted = Interrupts.onSignal()
        var settings = try RequestOptions(parsed)
        settings.network.boundSpeed()   // a batch never waits on a trickle: --speed-limit's defaults
        let outputDir = try OutputDirectory.from(parsed)
        settings.warnOfUnverifiedTLS()
        let limits = try limits(parsed)
        let shard = try ShardSetting.from(parsed)
        let saveFailed = try FeedbackOptions.saveFailedPath(parsed)
        let saveRemaining = try FeedbackOptions.saveFailedPath(parsed, key: OptionKeys.saveRemaining)
        let listPath = parsed.positional("LIST")
        let listName = (listPath == nil || listPath == "-") ? "stdin" : listPath!
        let table = try TableSettings.from(parsed, listPath: listPath)
        let shardPlace = try ShardDirectory.from(parsed, shard: shard, listPath: listPath,
                                                 options: ShardDirectory.digestedOptions(settings) + table.digestLines)
        // Held from the marker's check to its write: one run of the shard at a time.
        let shardLock = try shardPlace?.lock()
        if let shardPlace, try alreadyDone(shardPlace, quiet: settings.quiet) { return interrupted.signal.map(ExitCode.init(signal:)) ?? .ok }
        let reader: ListReader
        do { reader = try ListReader(path: listPath, format: table.format) } catch {
            throw UsageError("cannot read the list \(error.message)", commandPath: ["prefetch"])
        }
        // --save-remaining reads a list file again at the end; what stdin gave is kept as it comes.
        let rereadsList = reader.isRegularFile && listName != "stdin"
        // One vips thread per image and one image per core: no hand-offs between vips' own threads.
        VipsBridge.setConcurrency(1)

        let showProgress = showsProgress(parsed, quiet: settings.quiet)
        // Counted ahead only in a regular file: counting a pipe or FIFO would read it away.
        let progress = showProgress ? ProgressBar(total: reader.countSources()) : nil
        let remote = try settings.remote?.remoteCache(limits: limits)
        let pipeline = Pipelines.make(settings, limits: limits, remote: remote)
        defer { CookieJarFile.write(settings.network) }
        let prefetcher = Prefetcher(pipeline: pipeline, limits: limits)
        let started = FileSystem.monotonic()

        let items = ListItems(reader: reader, settings: settings, shard: shard, takesNames: outputDir != nil,
                              keepsText: saveFailed != nil || (saveRemaining != nil && !rereadsList),
                              table: table.format.isTable ? table : nil)
        let results = prefetcher.results(for: items)
        let stop: @Sendable () -> Void = {
            pipeline.cancelAllLoads()   // first, so no freed connection starts a queued transfer
            results.cancel()
            if let remote { Task { await remote.uploader.cancel() } }   // queued uploads are abandoned
        }
        interrupted.whenStopped { _ in stop() }
        let watchdog = try stallWatchdog(parsed, meter: pipeline.activity.meter, reader: reader, stop: stop)
        let run = PrefetchRun(settings: settings, listName: listName, progress: progress, outputDir: outputDir)
        run.keepsUndelivered = saveRemaining != nil && !rereadsList
        run.namesRows = table.format.isTable
        run.shardOutput = try shardPlace.map { (place) throws(UsageError) in try ShardOutput(place) }
        run.transfers = pipeline.activity.meter
        // The reader's own timer: retry notices as they are decided and a live bar, even while no
        // result arrives (every transfer waiting for its retry).
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 100_000_000)
                results.wake()
            }
        }
        while let event = await results.nextEvent() {
            run.notices(await pipeline.activity.takeNotices())
            guard case .completion(let completion) = event else { run.refresh(); continue }
            watchdog?.completed()
            if run.take(completion) { stop() }   // stdout's reader went away (`| head -1`): as an interrupt
            if let remote { run.uploadWarnings(await remote.uploader.takeWarnings()) }
        }
        ticker.cancel()
        watchdog?.stop()
        // A stall stops the run as an interrupt does, with its own exit code.
        let stalled = watchdog?.fired == true
        run.stalledAfter = stalled ? watchdog?.timeout : nil
        run.heldOrigins = pipeline.origins?.schedule.heldOrigins() ?? []
        run.drain()
        run.notices(await pipeline.activity.takeNotices())
        // Before exiting: the uploads still queued, at most --remote-timeout (none after an interrupt).
        if let remote, let timeout = settings.remote?.timeout {
            run.uploadWarnings(await remote.uploader.finish(timeout: interrupted.happened ? 0 : timeout))
            run.uploads = (await remote.uploader.failed, await remote.uploader.abandoned)
        }
        progress?.finish()
        run.reportDownOrigins()
        Report.lowDataDecision(settings)
        // Also after Ctrl-C or SIGTERM: the lines that failed so far.
        var saveError = false
        if let saveFailed, let problem = run.saveFailed(to: saveFailed) {
            Console.errorLine(problem)
            saveError = true
        }
        if let saveRemaining, let problem = saveRemainingLines(saveRemaining, run: run, listPath: rereadsList ? listPath : nil, shard: shard,
                                                                table: table.format.isTable ? table : nil,
                                                                interrupted: interrupted.happened || stalled, quiet: settings.quiet) {
            Console.errorLine(problem)
            saveError = true
        }
        // Its own eviction finished before the summary: the cache ends within its limit.
        var summary = run.summary
        summary.evicted.add(pipeline.cache.fitLimit())
        // Read once: a signal after this point finds every line done and the marker written, and
        // changes neither the summary nor the exit status (a marker only beside a run that exits 0).
        let stoppedBy = interrupted.signal
        // The marker last, and only when every line of the shard is done.
        if let shardOutput = run.shardOutput {
            if stoppedBy != nil || stalled || run.outputClosed || reader.readFailure != nil || summary.cancelled > 0 {
                shardOutput.abandon()
            } else if let problem = shardOutput.finish(summary, listName: listName) {
                Console.errorLine(problem)
                saveError = true
            }
        }
        shardLock?.release()
        run.printSummary(summary, ms: (FileSystem.monotonic() - started) * 1000, interrupted: stoppedBy != nil)
        if let signal = stoppedBy { return ExitCode(signal: signal) }
        if run.outputClosed { return .outputClosed }
        if stalled { return .stalled }
        if saveError { return .failed }
        if let failure = reader.readFailure {
            Console.errorLine("cannot read the list \(listName): \(failure)")
            return .usage
        }
        if summary.failed == 0 && summary.malformed == 0 { return summary.cacheErrors > 0 ? .cacheUnusable : .ok }
        if summary.failed > 0 && summary.failed == summary.notCached && summary.malformed == 0 { return .notCached }
        return .failed
    }
}

extension PrefetchCommand {
    /// `--stall-timeout` (default `StallWatchdog.defaultTimeout`, 0: none): started, its stall
    /// pointed at the run's stop path.
    static func stallWatchdog(_ parsed: ParsedCommand, meter: TransferMeter, reader: ListReader,
                              stop: @escaping @Sendable () -> Void) throws(UsageError) -> StallWatchdog? {
        let timeout = try parsed[OptionKeys.stallTimeout] ?? StallWatchdog.defaultTimeout
        guard timeout > 0 else { return nil }
        let watchdog = StallWatchdog(timeout: timeout, progress: { meter.reading().total }, idle: { reader.isWaiting }, onStall: stop)
        watchdog.start()
        return watchdog
    }

    /// True (after saying so) when `place`'s marker says this shard is done with the same digest;
    /// a marker of another digest is a usage error naming both.
    /// `--save-remaining FILE`: a list file is read again; from stdin, only what was read is known.
    static func saveRemainingLines(_ path: String, run: PrefetchRun, listPath: String?, shard: Shard?, table: TableSettings?,
                                   interrupted: Bool, quiet: Bool) -> String? {
        if let listPath {
            return RemainingLines.save(to: path, listPath: listPath, shard: shard, done: run.delivered, table: table)
        }
        if interrupted && !quiet {
            Console.errorLine("--save-remaining \(path): the list came from a pipe or standard input: the lines not yet read are not in it")
        }
        return RemainingLines.save(to: path, lines: run.undelivered)
    }

    static func alreadyDone(_ place: ShardDirectory, quiet: Bool) throws(UsageError) -> Bool {
        switch try place.marker() {
        case .none:
            return false
        case .done:
            if !quiet { Console.errorLine("shard \(place.shard.index)/\(place.shard.count) already done (\(place.markerPath))") }
            return true
        case .unvouched(let why):
            if !quiet { Console.errorLine("\(place.markerPath) is not trusted: \(why): running shard \(place.shard.index)/\(place.shard.count) again") }
            return false
        case .otherDigest(let found):
            throw UsageError("\(place.markerPath) marks shard \(place.shard.index)/\(place.shard.count) done for another list or other options (its digest \(found), this run's \(place.digest)): --redo runs the shard again, or give another --shard-dir", commandPath: ["prefetch"])
        }
    }
}

/// Ctrl-C / SIGTERM / SIGHUP: stop starting new work, cancel what is in flight (the cache stays
/// valid: every write is an atomic rename; a download cut short keeps its bytes to be resumed),
/// then the caller writes what it owes (the remaining and failed lines, the summary) and exits with
/// 128 + the signal (130, 143, 129). A signal the process started with ignored stays ignored. A
/// second signal removes the temporary files being written and exits at once.
final class Interrupts: Sendable {
    /// The first signal received; 0 for none.
    private let first = Atomic<Int32>(0)
    /// What the first signal stops, once there is something to stop (`whenStopped`).
    private let action = Lock<(@Sendable (Int32) -> Void)?>(nil)

    /// `stop` runs on the first signal, or at once when one came already.
    func whenStopped(_ stop: @escaping @Sendable (Int32) -> Void) {
        let already = action.withLock { current -> Int32? in
            current = stop
            let sig = first.load(ordering: .acquiring)
            return sig == 0 ? nil : sig
        }
        if let already { stop(already) }
    }

    var happened: Bool { signal != nil }
    /// The first signal received (SIGINT, SIGTERM or SIGHUP), if any.
    var signal: Int32? {
        let sig = first.load(ordering: .acquiring)
        return sig == 0 ? nil : sig
    }

    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    static func onSignal(_ stop: (@Sendable (Int32) -> Void)? = nil) -> Interrupts {
        let interrupts = Interrupts()
        if let stop { interrupts.whenStopped(stop) }
        for sig in handled where ifs_signal_was_ignored(sig) == 0 {
            Glibc.signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                // Under the action's lock, as `whenStopped` reads it: one of the two runs the stop.
                let (again, stop) = interrupts.action.withLock { action in
                    (!interrupts.first.compareExchange(expected: 0, desired: sig, ordering: .acquiringAndReleasing).exchanged, action)
                }
                if again {
                    TemporaryFiles.removeAll()
                    _exit(ExitCode(signal: sig).rawValue)
                }
                stop?(sig)
            }
            source.resume()
            sources.append(source)
        }
        return interrupts
    }

    /// `get`'s: a signal stops the downloads in flight, which keep what came as a timeout does
    /// (resumed by the next run with `Range` + `If-Range`), and refuses new ones; work past the
    /// download (a decode, a store: the whole body is in memory) finishes, so its entry is kept.
    /// The caller then exits with 128 + the signal, writing no image.
    /// With no attempt in flight (a wait before a retry, a cache lookup, an upload after the image
    /// is out) it removes the temporary files and exits at once, as before any work.
    static func stoppingLoads(of pipeline: ImagePipeline) -> Interrupts {
        onSignal { sig in
            pipeline.cancelAllLoads()
            guard pipeline.activity.attemptsInFlight > 0 else {
                TemporaryFiles.removeAll()
                _exit(ExitCode(signal: sig).rawValue)
            }
        }
    }

    /// Keeps the signal sources alive for the process. Written only on the main path before the
    /// work starts and never read, so unsynchronised access is safe.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
}
