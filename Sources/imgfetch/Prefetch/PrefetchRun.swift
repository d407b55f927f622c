import ImageFetch
#if canImport(Glibc)
import Glibc
#endif

/// What one prefetch run reports, kept by the one task that reads the prefetcher's results: the
/// counts, the progress bar, records on stdout and problems on stderr, and with `--output-dir`
/// the files, written and reported in list order (a line waits until every earlier one is done,
/// so the names depend on the list only). Used from one task only: no lock.
final class PrefetchRun {
    let settings: RequestOptions
    let listName: String
    let progress: ProgressBar?
    let outputDir: OutputDirectory?
    /// The pipeline's transfers, read for the bar's bytes/s and transfers in flight.
    var transfers: TransferMeter?
    /// With `--shard-dir`: the shard's records and marker.
    var shardOutput: ShardOutput?
    private(set) var summary = PrefetchSummary()
    /// Set when a write to stdout found its reader gone (EPIPE).
    private(set) var outputClosed = false
    /// Remote uploads that failed, and that were abandoned at the end (timeout or interrupt).
    var uploads: (failed: Int, abandoned: Int) = (0, 0)
    /// With `--output-dir`: finished lines held until every earlier item is done, by position.
    private var held: [Int: Prefetcher.Completion<LineTag>] = [:]
    private var nextPosition = 0
    /// With `--save-failed`: the failed lines as written, by line number.
    private(set) var failedLines: [(line: Int, text: [UInt8])] = []
    /// With `--save-remaining`: the lines delivered, and (for a list on stdin, whose lines cannot be
    /// read again) the text of the lines read and not delivered.
    private(set) var delivered = LineSet()
    var keepsUndelivered = false
    /// A tabular list: problems name the row (`LIST: row N:`).
    var namesRows = false
    private(set) var undelivered: [(line: Int, text: [UInt8])] = []
    /// Lines that failed because their origin is marked down or its robots.txt is unavailable, by
    /// origin: their count and the first's words, said in one line at the end (`-v`: a line each).
    private var downSkips: [String: (count: Int, message: String)] = [:]

    init(settings: RequestOptions, listName: String, progress: ProgressBar?, outputDir: OutputDirectory?) {
        self.settings = settings
        self.listName = listName
        self.progress = progress
        self.outputDir = outputDir
    }

    /// Takes one finished item; true when stdout's reader has gone (the run should stop).
    func take(_ arrived: Prefetcher.Completion<LineTag>) -> Bool {
        let completion = vetted(arrived)
        guard outputDir != nil else {
            report(completion, file: nil)
            return outputClosed
        }
        held[completion.tag.position] = completion
        while let next = held.removeValue(forKey: nextPosition) {
            nextPosition += 1
            release(next)
        }
        return outputClosed
    }

    /// With `--shard-tar`: an ok line whose sample cannot be a tar member (its own key) becomes
    /// the failure it is, before any file is written for it.
    private func vetted(_ completion: Prefetcher.Completion<LineTag>) -> Prefetcher.Completion<LineTag> {
        guard let tar = shardOutput?.tar, case .request = completion.tag.kind, case .success(let result)? = completion.outcome,
              let error = tar.refusal(line: completion.tag.line, own: completion.tag.cells?.key, size: result.image.bytes.count)
        else { return completion }
        var refused = completion
        refused.outcome = .failure(RetrievalFailure(error: error, attempts: result.attempts, milliseconds: result.milliseconds, key: result.key))
        return refused
    }

    /// Reports what is still held (every item read has finished by the end of the results).
    func drain() {
        for position in held.keys.sorted() { if let c = held.removeValue(forKey: position) { release(c) } }
    }

    private func release(_ completion: Prefetcher.Completion<LineTag>) {
        guard let outputDir, case .request(let template) = completion.tag.kind, let request = completion.request,
              case .success(let result) = completion.outcome else { return report(completion, file: nil) }
        var written = completion
        var file: WrittenFile?
        switch outputDir.write(result, source: request.source, line: completion.tag.line, template: template) {
        case .success(let written): file = written
        case .failure(let failure): written.outcome = .failure(failure)
        }
        report(written, file: file)
    }

    private func report(_ completion: Prefetcher.Completion<LineTag>, file: WrittenFile?) {
        var record: String?
        var problems: [String] = []
        switch (completion.tag.kind, completion.outcome) {
        case (.malformed(let message), _):
            summary.malformed += 1
            keepUndelivered(completion.tag)
            problems.append(namesRows ? "\(listName): row \(completion.tag.line): \(message)" : "\(listName):\(completion.tag.line): \(message)")
        case (.skipped, _):
            summary.skippedByShard += 1
        case (.header, _):
            keepUndelivered(completion.tag)
            return
        case (_, .success(let result)?):
            summary.record(.success(result), shared: completion.coalesced)
            if file?.kept == true { summary.kept += 1 }
            delivered.insert(completion.tag.line)
            if recordsWanted {
                let o = ResultRecord.success(result, file: file?.path, kept: file?.kept == true, line: completion.tag.line, placeholders: settings.options.placeholders)
                record = ResultRecord.adding(completion.tag.cells, to: o).text
            }
            if let record {
                shardOutput?.take(record: record, failure: nil,
                                  sample: (ShardTar.key(line: completion.tag.line, own: completion.tag.cells?.key), result.image))
            }
            problems = Report.problems(of: result, settings: settings)
            if settings.verbose { problems.append(Report.verbose(result, file: file?.path, kept: file?.kept == true)) }
        case (_, .failure(let failure)?) where failure.error.policySkip != nil:
            summary.record(.failure(failure))   // skipped by policy: not a failure, not in --save-failed
            delivered.insert(completion.tag.line)
            let source = completion.request?.source.description ?? ""
            if recordsWanted { record = ResultRecord.adding(completion.tag.cells, to: ResultRecord.skipped(failure, source: source, line: completion.tag.line)).text }
            if let record { shardOutput?.take(record: record, failure: nil) }
            if settings.verbose { problems.append(Report.problem(of: failure, source: source)) }
        case (_, .failure(let failure)?) where failure.error == .cancelled:
            summary.record(.failure(failure))   // abandoned by an interrupt: counted, not reported line by line
            keepUndelivered(completion.tag)
        case (_, .failure(let failure)?):
            summary.record(.failure(failure))
            let source = completion.request?.source.description ?? ""
            if let text = completion.tag.text { failedLines.append((completion.tag.line, text)) }
            keepUndelivered(completion.tag)
            if recordsWanted { record = ResultRecord.adding(completion.tag.cells, to: ResultRecord.failure(failure, source: source, line: completion.tag.line)).text }
            if let record { shardOutput?.take(record: record, failure: failure) }
            if !settings.quiet { problems += failure.warnings.map { "warning: " + $0 } }
            if failure.error.cause == .hostDown || failure.error.robotsUnavailable, !settings.verbose,
               let origin = completion.request?.source.origin {
                downSkips[origin, default: (0, failure.error.message)].count += 1
            } else {
                problems.append(Report.problem(of: failure, source: source))
            }
        case (.request, nil):
            return
        }
        if let progress, !problems.isEmpty { progress.finish() }
        for problem in problems { Console.errorLine(problem) }
        refresh(force: !problems.isEmpty)
        guard settings.json, let record, !outputClosed else { return }
        if FileSystem.writeAll(fd: 1, Array((record + "\n").utf8)) == EPIPE { outputClosed = true }
    }

    private func keepUndelivered(_ tag: LineTag) {
        if keepsUndelivered, let text = tag.text { undelivered.append((tag.line, text)) }
    }

    /// Records are made for stdout (`--json`) or the shard's records file.
    private var recordsWanted: Bool { settings.json || shardOutput != nil }

    /// Redraws the bar (throttled unless `force`): the counts so far, the transfers' bytes/s and
    /// how many are in flight.
    func refresh(force: Bool = false) {
        // Malformed lines and other shards' lines are done too: the total counts every source line.
        let done = summary.total + summary.malformed + summary.skippedByShard + summary.skippedByRobots + summary.skippedByOptOut
        progress?.update(done: done, failed: summary.failed, bytes: summary.bytesDownloaded, transfers: transfers?.reading(),
                         force: force)
    }

    /// Retry notices as the pipeline decided them, above the bar: a line each (none with --quiet).
    func notices(_ notices: [RetryNotice]) {
        guard !settings.quiet, !notices.isEmpty else { return }
        progress?.finish()
        for notice in notices { Console.errorLine("retry: " + notice.message) }
    }

    /// Writes the failed lines to `path` (`--save-failed`), in list order, atomically, 0600 (a line may
    /// hold `user=` or a header's credential); a message when it cannot.
    func saveFailed(to path: String) -> String? {
        var bytes: [UInt8] = []
        for failed in failedLines.sorted(by: { $0.line < $1.line }) { bytes += failed.text; bytes.append(10) }
        do { try FileSystem.writeOutput(bytes, to: path, ownerOnly: true) } catch {
            return "cannot write --save-failed \(path): \(error.message)"
        }
        return nil
    }

    /// Remote uploads' failures (or the abandonment of the rest): a warning line each.
    func uploadWarnings(_ warnings: [String]) {
        guard !settings.quiet, !warnings.isEmpty else { return }
        progress?.finish()
        for warning in warnings { Console.err("imgfetch: warning: " + TerminalText.escaped(warning) + "\n") }
    }

    /// One line per origin marked down: the mark, and how many lines failed for it without a request.
    func reportDownOrigins() {
        for (_, skipped) in downSkips.sorted(by: { $0.key < $1.key }) {
            let lines = skipped.count == 1 ? "1 line" : "\(skipped.count) lines"
            Console.errorLine("\(skipped.message); \(lines) failed without a request (-v lists each)")
        }
    }

    func printSummary(_ s: PrefetchSummary, ms: Double, interrupted: Bool) {
        let closed = outputClosed
        if settings.json && !closed {
            var o = JSONObject()
            o.add("summary", true)
            o.add("total", s.total)
            o.add("ok", s.ok)
            o.add("failed", s.failed)
            o.add("hits", s.hits)
            o.add("shared", s.shared)
            o.add("kept", s.kept)
            if settings.remote != nil {
                o.add("remote", s.remote)
                o.add("remote_upload_failures", uploads.failed)
                o.add("remote_uploads_abandoned", uploads.abandoned)
            }
            o.add("low_data", s.lowData)
            o.add("bytes_downloaded", s.bytesDownloaded)
            o.add("output_bytes", s.outputBytes)
            o.add("kept_original_bytes", s.keptOriginalBytes)
            o.add("partial", s.partial)
            o.add("partial_bytes_saved", s.partialSaved)
            o.add("malformed", s.malformed)
            o.add("skipped", s.skippedByShard)
            o.add("skipped_robots", s.skippedByRobots)
            o.add("skipped_opt_out", s.skippedByOptOut)
            o.add("cancelled", s.cancelled)
            o.add("evicted", s.evicted.count)
            o.add("evicted_bytes", s.evicted.bytes)
            o.add("ms", (ms * 10).rounded() / 10)
            o.add("causes", object: ResultRecord.causes(s.causes))
            o.add("timing", object: ResultRecord.percentiles(s.timing))
            o.add("interrupted", interrupted)
            Console.line(o.text)
        }
        if !settings.quiet || s.failed > 0 {
            let stopped = interrupted ? " interrupted" : closed ? " stopped (standard output closed)" : ""
            let remote = settings.remote != nil ? ", \(s.remote) remote" : ""
            var line = "imgfetch: prefetch\(stopped): \(s.ok) ok (\(s.hits) cached\(s.shared > 0 ? ", \(s.shared) shared" : "")\(remote), \(s.lowData) low-data), \(s.failed) failed"
            if !s.causes.isEmpty { line += " (by cause: " + s.causes.entries.map { "\($0.cause.rawValue) \($0.count)" }.joined(separator: ", ") + ")" }
            if s.kept > 0 { line += ", \(s.kept) kept (--no-clobber)" }
            if s.malformed > 0 { line += ", \(s.malformed) malformed line\(s.malformed == 1 ? "" : "s")" }
            if s.skippedByShard > 0 { line += ", \(s.skippedByShard) in other shards" }
            if s.skippedByRobots > 0 { line += ", \(s.skippedByRobots) skipped by robots.txt" }
            if s.skippedByOptOut > 0 { line += ", \(s.skippedByOptOut) skipped by opt-outs" }
            if s.cancelled > 0 { line += ", \(s.cancelled) cancelled" }
            if s.partial > 0 { line += ", \(s.partial) partial read\(s.partial == 1 ? "" : "s") (\(Formatting.size(s.partialSaved)) not downloaded)" }
            if s.evicted.count > 0 { line += ", \(s.evicted.count) evicted (\(Formatting.size(s.evicted.bytes)))" }
            if uploads.failed > 0 { line += ", \(uploads.failed) remote upload\(uploads.failed == 1 ? "" : "s") failed" }
            if uploads.abandoned > 0 { line += ", \(uploads.abandoned) remote upload\(uploads.abandoned == 1 ? "" : "s") abandoned" }
            line += ", \(Formatting.size(s.bytesDownloaded)) downloaded in \(Formatting.seconds(ms / 1000))"
            Console.err(line + "\n")
            if settings.verbose, let timing = ResultRecord.percentilesLine(s.timing) { Console.err("imgfetch: " + timing + "\n") }
            if s.originalsOutweighOutputs && !settings.quiet {
                let times = s.outputBytes > 0 ? " (\(s.keptOriginalBytes / s.outputBytes)x the \(Formatting.size(s.outputBytes)) of outputs)" : ""
                Console.err("imgfetch: the originals kept beside the outputs took \(Formatting.size(s.keptOriginalBytes))\(times); "
                            + "--no-keep-original leaves them out (only another size asked for later would use them)\n")
            }
        }
    }
}
