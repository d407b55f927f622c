import ArgumentKit
import ImageFetch

/// One shard's files as the run writes them (`--shard-dir`): its records, a line each as `--json`
/// prints them, streamed to a temporary file, and with `--shard-tar` the ok lines' samples
/// (`ShardTar`); at the end of a run that did every line, the records and the tar renamed into
/// place, then the marker, which holds their SHA-256 (hashed as they are written, so it vouches for
/// this run's files, not for whatever another run left under their names). A run that stops early (a signal, stdout closed, a read
/// error) leaves neither. Used from the one task that reads the results (`PrefetchRun`).
final class ShardOutput {
    let place: ShardDirectory
    private let records: AtomicFile
    /// With `--shard-tar`.
    let tar: ShardTar?
    let started = FileSystem.now()
    /// Failures by `error.code` and by `error.cause`.
    private(set) var codes: [String: Int] = [:]
    private(set) var causes: [String: Int] = [:]

    init(_ place: ShardDirectory) throws(UsageError) {
        self.place = place
        try place.prepare()
        do {
            records = try AtomicFile(path: place.recordsPath, hashing: true)
            tar = place.tar ? try ShardTar(path: place.tarPath, mtime: started) : nil
        } catch {
            throw UsageError("cannot write in --shard-dir \(place.directory): \(error.message)", commandPath: ["prefetch"])
        }
    }

    /// Appends one result's record (`ResultRecord`'s text), and an ok line's sample to the tar:
    /// `sample` is its key and image.
    func take(record: String, failure: RetrievalFailure?, sample: (key: String, image: ProcessedImage)? = nil) {
        records.append(Array((record + "\n").utf8))
        if let tar, let sample { tar.append(key: sample.key, image: sample.image, record: record) }
        guard let failure else { return }
        codes[failure.error.code, default: 0] += 1
        causes[failure.error.cause.rawValue, default: 0] += 1
    }

    /// Renames the records into place, then writes the marker: a message when either fails.
    func finish(_ summary: PrefetchSummary, listName: String) -> String? {
        do { try records.commit() } catch {
            tar?.discard()
            return "cannot write the shard's records: \(error.message)"
        }
        if let problem = tar?.commit() { return "cannot write the shard's tar \(place.tarPath): \(problem)" }
        let marker = markerText(summary, listName: listName)
        do {
            try FileSystem.writeAtomically(Array((marker + "\n").utf8), to: place.markerPath, temporaryDirectory: place.directory)
        } catch { return "cannot write the shard's marker: \(error.message)" }
        return nil
    }

    /// A run that did not do every line: nothing under the final names.
    func abandon() {
        records.discard()
        tar?.discard()
    }

    func markerText(_ s: PrefetchSummary, listName: String) -> String {
        var o = JSONObject()
        o.add("shard", "\(place.shard.index)/\(place.shard.count)")
        o.add("total", s.total)
        o.add("ok", s.ok)
        o.add("failed", s.failed)
        o.add("hits", s.hits)
        o.add("bytes_downloaded", s.bytesDownloaded)
        o.add("malformed", s.malformed)
        o.add("skipped", s.skippedByShard)
        o.add("skipped_robots", s.skippedByRobots)
        o.add("skipped_opt_out", s.skippedByOptOut)
        var failures = JSONObject()
        failures.add("by_code", object: Self.counts(codes))
        failures.add("by_cause", object: Self.counts(causes))
        o.add("failures", object: failures)
        o.add("started", Formatting.timestamp(started))
        o.add("finished", Formatting.timestamp(FileSystem.now()))
        o.add("list", listName)
        o.add("records", place.stem + ".ndjson")
        // What the marker vouches for: the files as this run wrote them (checked when it is read).
        o.add("records_sha256", records.sha256 ?? "")
        if let tar {
            o.add("tar", place.stem + ".tar")
            o.add("tar_sha256", tar.sha256 ?? "")
        }
        o.add("digest", place.digest)
        return o.text
    }

    static func counts(_ counts: [String: Int]) -> JSONObject {
        var o = JSONObject()
        for (key, value) in counts.sorted(by: { $0.key < $1.key }) { o.add(key, value) }
        return o
    }
}
