import ArgumentKit
import Dispatch
import ImageFetch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `imgfetch prefetch [options] [LIST | -]`: warm the cache from a list, concurrently and politely.
enum PrefetchCommand {
    static func run(_ parsed: ParsedCommand) async throws(UsageError) -> ExitCode {
        let settings = try RequestOptions(parsed)
        let outputDir = try OutputDirectory.from(parsed)
        if settings.network.tls.insecure { Console.errorLine(NetworkSettings.insecureWarning) }
        let jobs = try parsed.int("jobs", range: 1...256) ?? 8
        let rate = try parsed.double("rate", range: 0.001...100_000)
        let perHost = try parsed.int("per-host", range: 1...256) ?? 0
        var shard: Shard?
        if let fraction = try parsed.parse("shard", ValueParsers.fraction) { shard = Shard(index: fraction.k, count: fraction.n) }
        let listPath = parsed.positional("LIST")
        let listName = (listPath == nil || listPath == "-") ? "stdin" : listPath!
        let reader: ListReader
        do { reader = try ListReader(path: listPath) } catch {
            throw UsageError("cannot read the list \(error.message)", commandPath: ["prefetch"])
        }
        // One vips thread per image and one image per core: no hand-offs between vips' own threads.
        VipsBridge.setConcurrency(1)

        let showProgress = !parsed.flag("no-progress") && !settings.quiet
            && (parsed.flag("progress") || Console.stderrIsTerminal)
        // Counted ahead only in a regular file: counting a pipe or FIFO would read it away.
        let progress = showProgress ? ProgressBar(total: reader.countSources()) : nil
        let run = PrefetchRun(settings: settings, listName: listName, shard: shard, reader: reader, progress: progress,
                              outputDir: outputDir)
        // An upload's failure comes later than its image's record: a warning line of its own.
        let remote = try settings.remote?.remoteCache(onWarning: { run.uploadWarning($0) })
        let pipeline = Pipelines.make(settings, maxConnections: jobs, maxPerHost: perHost, rate: rate, remote: remote)
        let prefetcher = Prefetcher(pipeline: pipeline, jobs: jobs)
        let started = FileSystem.monotonic()

        let work = Task { await prefetcher.run(next: { await run.next() }, onCompletion: { run.report($0) }) }
        let stop: @Sendable () -> Void = {
            pipeline.cancelAllLoads()   // first, so no freed connection starts a queued transfer
            work.cancel()
            if let remote { Task { await remote.uploader.cancel() } }   // queued uploads are abandoned
        }
        let interrupted = Interrupts.onSignal { _ in stop() }
        run.outputClosed.install(stop)
        await work.value
        run.finishOutput()
        // Before exiting: the uploads still queued, at most --remote-timeout (none after an interrupt).
        if let remote, let timeout = settings.remote?.timeout {
            _ = await remote.uploader.finish(timeout: interrupted.happened ? 0 : timeout)
            run.uploads = (await remote.uploader.failed, await remote.uploader.abandoned)
        }
        progress?.finish()
        let summary = run.summary
        run.printSummary(summary, ms: (FileSystem.monotonic() - started) * 1000, interrupted: interrupted.happened)
        if let signal = interrupted.signal { return ExitCode(signal: signal) }
        if run.outputClosed.happened { return .outputClosed }
        if let failure = reader.readFailure {
            Console.errorLine("cannot read the list \(listName): \(failure)")
            return .usage
        }
        if summary.failed == 0 && summary.malformed == 0 { return summary.cacheErrors > 0 ? .cacheUnusable : .ok }
        if summary.failed > 0 && summary.failed == summary.notCached && summary.malformed == 0 { return .notCached }
        return .failed
    }
}

/// The shared state of one prefetch run: the list being read, the counts, and serialized output.
final class PrefetchRun: Sendable {
    let settings: RequestOptions
    let listName: String
    let shard: Shard?
    let reader: ListReader
    let progress: ProgressBar?
    /// `--output-dir`: delivered images are written there, and reported, in list order.
    let outputDir: OutputDirectory?
    /// Set when a write to stdout finds its reader gone (EPIPE): the run stops as on an interrupt.
    let outputClosed = StopSwitch()
    /// The last batch of lines read and the index of the next one.
    private let pending = Mutex<(lines: [ListLine], index: Int)>(([], 0))
    private let counts = Mutex(PrefetchSummary())
    private let output = Mutex(())
    /// Remote uploads that failed, and that were abandoned at the end (timeout or interrupt).
    private let uploadCounts = Mutex((failed: 0, abandoned: 0))
    var uploads: (failed: Int, abandoned: Int) {
        get { uploadCounts.withLock { $0 } }
        set { uploadCounts.withLock { $0 = newValue } }
    }

    init(settings: RequestOptions, listName: String, shard: Shard?, reader: ListReader, progress: ProgressBar?,
         outputDir: OutputDirectory? = nil) {
        self.outputDir = outputDir
        self.settings = settings
        self.listName = listName
        self.shard = shard
        self.reader = reader
        self.progress = progress
    }

    var summary: PrefetchSummary { counts.withLock { $0 } }

    /// The next request of the list: malformed lines are reported and skipped, other shards' lines skipped.
    func next() async -> (line: Int, request: ImageRequest)? {
        while !outputClosed.happened, let line = await nextLine() {
            switch ListParser.parse(line) {
            case .skip:
                continue
            case .malformed(let n, let message):
                counts.withLock { $0.malformed += 1 }
                write(stderr: "imgfetch: \(listName):\(n): \(message)\n")
            case .item(let item):
                if let shard, !shard.contains(item.source) {
                    counts.withLock { $0.skippedByShard += 1 }
                    continue
                }
                var template: OutputTemplate?
                if let name = item.name {
                    guard outputDir != nil else {
                        counts.withLock { $0.malformed += 1 }
                        write(stderr: "imgfetch: \(listName):\(line.number): name= needs --output-dir\n")
                        continue
                    }
                    do { template = try OutputTemplate(name) } catch {
                        counts.withLock { $0.malformed += 1 }
                        write(stderr: "imgfetch: \(listName):\(line.number): name=: \(error.message)\n")
                        continue
                    }
                }
                outputDir?.issue(line: line.number, template: template)
                return (line.number, settings.request(for: item.source, lowDataSource: item.lowDataSource, alternatives: item.alternatives,
                                                      network: item.network(over: settings.network)))
            }
        }
        return nil
    }

    /// The next line of the list, read as it arrives; nil at its end (or when the run is cancelled).
    private func nextLine() async -> ListLine? {
        let buffered = pending.withLock { p -> ListLine? in
            guard p.index < p.lines.count else { return nil }
            defer { p.index += 1 }
            return p.lines[p.index]
        }
        if let buffered { return buffered }
        let batch = await reader.nextBatch()
        guard let first = batch.first else { return nil }
        pending.withLock { $0 = (batch, 1) }
        return first
    }

    func report(_ completion: Prefetcher.Completion) {
        guard let outputDir else { return report(completion, file: nil) }
        outputDir.complete(completion) { report($0, file: $1) }
    }

    /// Writes and reports the lines an interrupt left behind earlier, undone lines.
    func finishOutput() { outputDir?.finish { report($0, file: $1) } }

    func report(_ completion: Prefetcher.Completion, file: String?) {
        let snapshot = counts.withLock { c -> PrefetchSummary in c.record(completion); return c }
        var record: String?
        var problems: [String] = []
        switch completion.outcome {
        case .success(let result):
            if settings.json { record = ResultRecord.success(result, file: file).text }
            problems = Report.problems(of: result, settings: settings)
            if settings.verbose { problems.append(Report.verbose(result)) }
        case .failure(let failure) where failure.error == .cancelled:
            return  // abandoned by an interrupt: counted as cancelled, not reported line by line
        case .failure(let failure):
            let source = completion.request.source.description
            if settings.json { record = ResultRecord.failure(failure, source: source).text }
            if !settings.quiet { problems += failure.warnings.map { "warning: " + $0 } }
            problems.append(Report.problem(of: failure, source: source))
        }
        let closed = output.withLock { _ -> Bool in
            if let progress, !problems.isEmpty { progress.finish() }
            for problem in problems { Console.errorLine(problem) }
            // Malformed lines and other shards' lines are done too: the total counts every source line.
            let done = snapshot.total + snapshot.malformed + snapshot.skippedByShard
            progress?.update(done: done, failed: snapshot.failed, bytes: snapshot.bytesDownloaded, force: !problems.isEmpty)
            guard let record, !outputClosed.happened else { return false }
            return FileSystem.writeAll(fd: 1, Array((record + "\n").utf8)) == EPIPE
        }
        if closed { outputClosed.fire() }   // the reader went away (`| head -1`): stop, as on an interrupt
    }

    /// A remote upload's failure (or the abandonment of the rest): a warning line of its own
    /// (counted by the uploader, in the summary).
    func uploadWarning(_ warning: String) {
        guard !settings.quiet else { return }
        write(stderr: "imgfetch: warning: " + TerminalText.escaped(warning) + "\n")
    }

    func write(stderr text: String) { output.withLock { _ in progress?.finish(); Console.err(text) } }

    func printSummary(_ s: PrefetchSummary, ms: Double, interrupted: Bool) {
        let closed = outputClosed.happened
        if settings.json && !closed {
            var o = JSONObject()
            o.add("summary", true)
            o.add("total", s.total)
            o.add("ok", s.ok)
            o.add("failed", s.failed)
            o.add("hits", s.hits)
            if settings.remote != nil {
                o.add("remote", s.remote)
                o.add("remote_upload_failures", uploads.failed)
                o.add("remote_uploads_abandoned", uploads.abandoned)
            }
            o.add("low_data", s.lowData)
            o.add("bytes_downloaded", s.bytesDownloaded)
            o.add("malformed", s.malformed)
            o.add("skipped", s.skippedByShard)
            o.add("cancelled", s.cancelled)
            o.add("ms", (ms * 10).rounded() / 10)
            o.add("interrupted", interrupted)
            Console.line(o.text)
        }
        if !settings.quiet || s.failed > 0 {
            let stopped = interrupted ? " interrupted" : closed ? " stopped (standard output closed)" : ""
            let remote = settings.remote != nil ? ", \(s.remote) remote" : ""
            var line = "imgfetch: prefetch\(stopped): \(s.ok) ok (\(s.hits) cached\(remote), \(s.lowData) low-data), \(s.failed) failed"
            if s.malformed > 0 { line += ", \(s.malformed) malformed line\(s.malformed == 1 ? "" : "s")" }
            if s.skippedByShard > 0 { line += ", \(s.skippedByShard) in other shards" }
            if s.cancelled > 0 { line += ", \(s.cancelled) cancelled" }
            let upload = uploads
            if upload.failed > 0 { line += ", \(upload.failed) remote upload\(upload.failed == 1 ? "" : "s") failed" }
            if upload.abandoned > 0 { line += ", \(upload.abandoned) remote upload\(upload.abandoned == 1 ? "" : "s") abandoned" }
            line += ", \(Formatting.size(s.bytesDownloaded)) downloaded in \(Formatting.seconds(ms / 1000))"
            Console.err(line + "\n")
        }
    }
}

/// Runs its stop action once, the first time it fires; an action installed after that runs at once.
/// `happened` is an atomic load: it is read for every line of the list.
final class StopSwitch: Sendable {
    private let fired = Atomic<Bool>(false)
    private let state = Mutex<(action: (@Sendable () -> Void)?, ran: Bool)>((nil, false))

    var happened: Bool { fired.load(ordering: .acquiring) }

    func install(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.action = action }
        runOnce()
    }

    func fire() {
        guard fired.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        runOnce()
    }

    private func runOnce() {
        guard happened else { return }
        let action = state.withLock { s -> (@Sendable () -> Void)? in
            guard !s.ran, let action = s.action else { return nil }
            s.ran = true
            return action
        }
        action?()
    }
}

/// Ctrl-C / SIGTERM: stop starting new work, cancel what is in flight (the cache stays valid: every
/// write is an atomic rename), then the caller prints the summary so far and exits with 128 + the
/// signal (130, 143). A second signal removes the temporary files being written and exits at once.
final class Interrupts: Sendable {
    private let first = Mutex<Int32?>(nil)

    var happened: Bool { signal != nil }
    /// The first signal received (SIGINT or SIGTERM), if any.
    var signal: Int32? { first.withLock { $0 } }

    static func onSignal(_ stop: @escaping @Sendable (Int32) -> Void) -> Interrupts {
        let interrupts = Interrupts()
        for sig in [SIGINT, SIGTERM] {
            Glibc.signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                let again = interrupts.first.withLock { seen in defer { seen = seen ?? sig }; return seen != nil }
                if again {
                    TemporaryFiles.removeAll()
                    _exit(ExitCode(signal: sig).rawValue)
                }
                stop(sig)
            }
            source.resume()
            sources.append(source)
        }
        return interrupts
    }

    /// Keeps the signal sources alive for the process. Written only on the main path before the
    /// work starts and never read, so unsynchronised access is safe.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
}
