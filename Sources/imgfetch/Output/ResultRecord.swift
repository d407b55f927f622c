import ImageFetch

/// The contract's result record (`--json`), one line per result.
enum ResultRecord {
    /// `file`: where `--output-dir` wrote the image (added as "file" when given); `kept`: a file
    /// already there was kept (`--no-clobber`: "output": "kept"); `line`: the prefetch list line the
    /// record is for (added as "line" when given); `placeholders`: the ones `--placeholder` asked for
    /// ("average_color" comes with any).
    static func success(_ r: ImageResult, file: String? = nil, kept: Bool = false, line: Int? = nil, placeholders: Set<PlaceholderKind> = []) -> JSONObject {
        var o = JSONObject()
        o.add("status", "ok")
        o.add("original_source", r.originalSource.description)
        o.add("source", r.source.description)
        o.add("key", r.key.rawValue)
        o.add("path", r.path)
        o.add("cache", r.cache.rawValue)
        if let reason = r.staleReason { o.add("stale_reason", reason) }
        o.add("low_data", r.lowData)
        o.add("width", r.image.width)
        o.add("height", r.image.height)
        o.add("format", r.image.format)
        o.add("bytes", r.image.bytes.count)
        o.add("attempts", r.attempts)
        o.add("ms", r.milliseconds)
        o.add("downloaded_bytes", r.downloadedBytes)
        // Absent when not known: an entry of an older version; the hash of a partial read.
        if let sha = r.sourceSHA256 { o.add("source_sha256", sha) }
        if let width = r.sourceWidth, let height = r.sourceHeight {
            o.add("source_width", width)
            o.add("source_height", height)
        }
        if !r.image.droppedMetadata.isEmpty { o.add("metadata_dropped", strings: r.image.droppedMetadata) }
        addReading(r.reading, to: &o)
        o.add("timing", object: timing(r.timing))
        if !placeholders.isEmpty, let p = r.image.placeholders {
            if placeholders.contains(.blurhash) { o.add("blurhash", p.blurhash) }
            if placeholders.contains(.thumbhash) { o.add("thumbhash", p.thumbhash) }
            o.add("average_color", p.averageColorHex)
        }
        let warnings = r.retries.map { "retry: " + $0.message } + r.warnings
        if !warnings.isEmpty { o.add("warnings", strings: warnings) }
        if let cacheError = r.cacheError { o.add("cache_error", object: error(cacheError)) }
        if let file { o.add("file", file) }
        if kept { o.add("output", "kept") }
        if let line { o.add("line", line) }
        return o
    }

    /// A line skipped by policy: `"skip"` says why (`robots` or `opt_out`) and the rule or directive.
    static func skipped(_ f: RetrievalFailure, source: String, line: Int? = nil) -> JSONObject {
        var o = JSONObject()
        o.add("status", "skipped")
        o.add("original_source", source)
        o.add("source", source)
        o.add("key", f.key?.rawValue)
        o.add("path", nil as String?)
        o.add("attempts", f.attempts)
        o.add("ms", f.milliseconds)
        if let skip = f.error.policySkip {
            var x = JSONObject()
            x.add("cause", skip.cause.rawValue)
            x.add("rule", skip.rule)
            o.add("skip", object: x)
        }
        if let line { o.add("line", line) }
        return o
    }

    static func failure(_ f: RetrievalFailure, source: String, line: Int? = nil) -> JSONObject {
        var o = JSONObject()
        o.add("status", "failed")
        o.add("original_source", source)
        o.add("source", source)
        o.add("key", f.key?.rawValue)
        o.add("path", nil as String?)
        o.add("cache", f.cached ? "hit" : nil)
        o.add("low_data", false)
        o.add("attempts", f.attempts)
        o.add("ms", f.milliseconds)
        o.add("timing", object: timing(f.timing))
        o.add("error", object: error(f.error))
        if f.error.robotsUnavailable { o.add("robots", "unavailable") }
        let warnings = f.retries.map { "retry: " + $0.message } + f.warnings
        if !warnings.isEmpty { o.add("warnings", strings: warnings) }
        if let line { o.add("line", line) }
        return o
    }

    /// A tabular list's row: `"columns"` (the `--keep-columns` cells, null for one the row lacks)
    /// and `"row_key"` (the `--key-column` value), after the record's own fields.
    static func adding(_ cells: RowCells?, to record: JSONObject) -> JSONObject {
        guard let cells else { return record }
        var o = record
        if let key = cells.key { o.add("row_key", key) }
        if !cells.columns.isEmpty {
            var columns = JSONObject()
            for cell in cells.columns { columns.add(cell.name, cell.value) }
            o.add("columns", object: columns)
        }
        return o
    }

    static func error(_ e: FetchError) -> JSONObject {
        var o = JSONObject()
        o.add("code", e.code)
        o.add("cause", e.cause.rawValue)
        o.add("class", FailureClass(e).rawValue)
        o.add("message", e.message)
        if case .httpStatus(let status, _) = e { o.add("status", status) }
        if case .retryAfterBeyondLimit(let status, _, _) = e { o.add("status", status) }
        if case .loginWithheld(let status, _) = e { o.add("status", status) }
        if case .robotsUnavailable(_, .httpStatus(let status, _)) = e { o.add("status", status) }
        o.add("retryable", e.isRetryable)
        if case .sourcesExhausted(let failures) = e {
            o.add("failures", objects: failures.map { f in
                var x = JSONObject()
                x.add("source", f.source)
                x.add("code", f.error.code)
                x.add("cause", f.error.cause.rawValue)
                x.add("message", f.error.message)
                x.add("attempts", f.attempts)
                return x
            })
        }
        return o
    }
}
