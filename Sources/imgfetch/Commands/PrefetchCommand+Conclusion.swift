import ArgumentKit
import ImageFetch

extension PrefetchCommand.Job {
    /// Once the run's events have ended: the bar removed, the down origins said, the failed and
    /// remaining lines written (also after a signal), the cache fitted to its limit, the shard's
    /// marker (only when every line is done), the summary; then the exit status.
    func conclude(_ run: PrefetchRun, reader: ListReader, pipeline: ImagePipeline, interrupted: Interrupts, ms: Double) -> ExitCode {
        run.progress?.finish()
        run.reportDownOrigins()
        Report.lowDataDecision(settings)
        Report.politenessNotes(pipeline, settings: settings)
        // Also after Ctrl-C or SIGTERM: the lines that failed so far.
        var saveError = false
        if let saveFailed, let problem = run.saveFailed(to: saveFailed) {
            Console.errorLine(problem)
            saveError = true
        }
        if let saveRemaining, let problem = PrefetchCommand.saveRemainingLines(
            saveRemaining, run: run, listPath: rereadsList(reader) ? listPath : nil, shard: shard, table: tableFormat,
            interrupted: interrupted.happened, quiet: settings.quiet) {
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
            if stoppedBy != nil || run.outputClosed || reader.readFailure != nil || summary.cancelled > 0 {
                shardOutput.abandon()
            } else if let problem = shardOutput.finish(summary, listName: listName) {
                Console.errorLine(problem)
                saveError = true
            }
        }
        shardLock?.release()
        run.printSummary(summary, ms: ms, interrupted: stoppedBy != nil)
        return exitCode(summary, stoppedBy: stoppedBy, outputClosed: run.outputClosed, saveError: saveError, reader: reader)
    }

    /// The exit status of a run that ended (the contract's table, man page EXIT STATUS).
    func exitCode(_ summary: PrefetchSummary, stoppedBy: Int32?, outputClosed: Bool, saveError: Bool, reader: ListReader) -> ExitCode {
        if let signal = stoppedBy { return ExitCode(signal: signal) }
        if outputClosed { return .outputClosed }
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

    /// True (after saying so) when `place`'s marker says this shard is done with the same digest;
    /// a marker of another digest is a usage error naming both.
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

