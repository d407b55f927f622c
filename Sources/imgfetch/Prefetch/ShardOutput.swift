import ArgumentKit
import ImageFetch

/// One shard's files as the run writes them (`--shard-dir`): its records, a line each as `--json`
/// prints them, streamed to a temporary file; at the end of a run that did every line, the records
/// renamed into place, then the marker. A run that stops early (a signal, stdout closed, a read
/// error) leaves neither. Used from the one task that reads the results (`PrefetchRun`).
final class ShardOutput {
    let place: ShardDirectory
    private let records: AtomicFile
    let started = FileSystem.now()
    /// Failures by `error.code` and by `error.cause`.
    private(set) var codes: [String: Int] = [:]
    private(set) var causes: [String: Int] = [:]

    init(_ place: ShardDirectory) throws(UsageError) {
        self.place = place
        try place.prepare()
        do { records = try AtomicFile(path: place.recordsPath) } catch {
            throw UsageError("cannot write in --shard-dir \(place.directory): \(error.message)", commandPath: ["prefetch"])
        }
    }

    /// Appends one result's record (`ResultRecord`'s text).
    func take(record: String, failure: RetrievalFailure?) {
        records.append(Array((record + "\n").utf8))
        guard let failure else { return }
        codes[failure.error.code, default: 0] += 1
        if let cause = Self.cause(of: failure, record: record) { causes[cause, default: 0] += 1 }
    }

    /// The seam for causes: the record's `error.cause` (issue 32's field) until the prefetch
    /// summary's own per-cause count is on main; nil when the record has none.
    static func cause(of failure: RetrievalFailure, record: String) -> String? {
        let bytes = Array(record.utf8), needle = Array("\"cause\":\"".utf8)
        guard bytes.count > needle.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] && Array(bytes[start..<start + needle.count]) == needle {
            let rest = bytes[(start + needle.count)...].prefix(64)
            guard let end = rest.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            let value = bytes[(start + needle.count)..<end]
            guard value.allSatisfy({ $0 == UInt8(ascii: "_") || (97...122).contains($0) || (48...57).contains($0) }) else { return nil }
            return String(decoding: value, as: UTF8.self)
        }
        return nil
    }

    /// Renames the records into place, then writes the marker: a message when either fails.
    func finish(_ summary: PrefetchSummary, listName: String) -> String? {
        do { try records.commit() } catch { return "cannot write the shard's records: \(error.message)" }
        let marker = markerText(summary, listName: listName)
        do {
            try FileSystem.writeAtomically(Array((marker + "\n").utf8), to: place.markerPath, temporaryDirectory: place.directory)
        } catch { return "cannot write the shard's marker: \(error.message)" }
        return nil
    }

    /// A run that did not do every line: nothing under the final names.
    func abandon() { records.discard() }

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
        var failures = JSONObject()
        failures.add("by_code", object: Self.counts(codes))
        failures.add("by_cause", object: Self.counts(causes))
        o.add("failures", object: failures)
        o.add("started", Formatting.timestamp(started))
        o.add("finished", Formatting.timestamp(FileSystem.now()))
        o.add("list", listName)
        o.add("records", place.stem + ".ndjson")
        o.add("digest", place.digest)
        return o.text
    }

    static func counts(_ counts: [String: Int]) -> JSONObject {
        var o = JSONObject()
        for (key, value) in counts.sorted(by: { $0.key < $1.key }) { o.add(key, value) }
        return o
    }
}
