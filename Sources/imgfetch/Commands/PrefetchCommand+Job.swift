import ArgumentKit
import ImageFetch

extension PrefetchCommand {
    /// What a prefetch is asked to do, read from its options before any work: the requests'
    /// settings, the limits, the list and its format, the shard and its directory (its lock held
    /// from the marker's check to its write: one run of the shard at a time), the files it writes.
    struct Job {
        var settings: RequestOptions
        let outputDir: OutputDirectory?
        let limits: Limits
        let shard: Shard?
        let saveFailed: String?
        let saveRemaining: String?
        let listPath: String?
        let listName: String
        let table: TableSettings
        let shardPlace: ShardDirectory?
        let shardLock: LockFile?

        init(_ parsed: ParsedCommand) throws(UsageError) {
            settings = try RequestOptions(parsed)
            settings.network.boundSpeed()   // a batch never waits on a trickle: --speed-limit's defaults
            settings.politeness = try PolitenessSettings.from(parsed, settings: settings, robotsByDefault: true,
                                                              dataset: parsed[OptionKeys.shardDir] != nil)
            outputDir = try OutputDirectory.from(parsed)
            settings.warnOfUnverifiedTLS()
            limits = try Runs.limits(settings, batch: parsed)
            shard = try ShardSetting.from(parsed)
            saveFailed = try FeedbackOptions.saveFailedPath(parsed)
            saveRemaining = try FeedbackOptions.saveFailedPath(parsed, key: OptionKeys.saveRemaining)
            listPath = parsed.positional("LIST")
            listName = (listPath == nil || listPath == "-") ? "stdin" : listPath!
            table = try TableSettings.from(parsed, listPath: listPath)
            shardPlace = try ShardDirectory.from(parsed, shard: shard, listPath: listPath,
                                                 options: ShardDirectory.digestedOptions(settings) + table.digestLines)
            shardLock = try shardPlace?.lock()
        }

        func openList() throws(UsageError) -> ListReader {
            do { return try ListReader(path: listPath, format: table.format) } catch {
                throw UsageError("cannot read the list \(error.message)", commandPath: ["prefetch"])
            }
        }

        /// --save-remaining reads a list file again at the end; what stdin gave is kept as it comes.
        func rereadsList(_ reader: ListReader) -> Bool { reader.isRegularFile && listName != "stdin" }

        /// A tabular list's settings; nil for a list of lines.
        var tableFormat: TableSettings? { table.format.isTable ? table : nil }

        /// The list's lines as the run's items.
        func items(_ reader: ListReader) -> ListItems {
            ListItems(reader: reader, settings: settings, shard: shard, takesNames: outputDir != nil,
                      keepsText: saveFailed != nil || (saveRemaining != nil && !rereadsList(reader)), table: tableFormat)
        }

        /// The reader of the run's events: what it reports, and with `--shard-dir` the shard's records.
        func report(_ reader: ListReader, progress: ProgressBar?, transfers: TransferMeter) throws(UsageError) -> PrefetchRun {
            let run = PrefetchRun(settings: settings, listName: listName, progress: progress, outputDir: outputDir)
            run.keepsUndelivered = saveRemaining != nil && !rereadsList(reader)
            run.namesRows = table.format.isTable
            run.shardOutput = try shardPlace.map { (place) throws(UsageError) in try ShardOutput(place) }
            run.transfers = transfers
            return run
        }
    }
}

extension PrefetchCommand {
    /// `--stall-timeout` in seconds (default `StallWatchdog.defaultTimeout`; 0: none).
    static func stallTimeout(_ parsed: ParsedCommand) throws(UsageError) -> Double {
        try parsed[OptionKeys.stallTimeout] ?? StallWatchdog.defaultTimeout
    }

    /// The run's watchdog (`--stall-timeout`; nil: none), started, its stall pointed at the run's
    /// one stop (`FetchRun.cancel`).
    static func stallWatchdog(_ parsed: ParsedCommand, meter: TransferMeter, reader: ListReader,
                              stop: @escaping @Sendable () -> Void) throws(UsageError) -> StallWatchdog? {
        let timeout = try stallTimeout(parsed)
        guard timeout > 0 else { return nil }
        let watchdog = StallWatchdog(timeout: timeout, progress: { meter.reading().total }, idle: { reader.isWaiting }, onStall: stop)
        watchdog.start()
        return watchdog
    }
}
