import ImageFetch

/// How results and failures are told: JSON records on stdout, one line per problem on stderr.
enum Report {
    /// The stderr lines (without the `imgfetch: ` prefix) a delivered result has: its warnings
    /// (unless quiet), then a cache error.
    static func problems(of result: ImageResult, settings: RequestOptions) -> [String] {
        var lines = settings.quiet ? [] : result.warnings.map { "warning: " + $0 }
        if let cacheError = result.cacheError { lines.append(cacheError.message(naming: result.originalSource.description)) }
        return lines
    }

    /// The stderr line (without the prefix) of a failure, naming the source, and the option that
    /// would have served it when there is one (`hint`).
    static func problem(of failure: RetrievalFailure, source: String) -> String {
        failure.error.message(naming: source) + (hint(for: failure.error).map { "; " + $0 } ?? "")
    }

    static func hint(for error: FetchError) -> String? {
        switch error {
        case .cachedButStale: "--offline would serve it"
        case .loginWithheld: "--location-trusted sends it to every host the redirects reach (only if you trust them all)"
        case .sourcesExhausted(let failures): failures.lazy.compactMap { hint(for: $0.error) }.first
        case .unsupportedFormat(let why) where why.hasPrefix("JPEG XL"): "--allow-jxl reads it (trusting that loader)"
        default: nil
        }
    }

    static func success(_ result: ImageResult, settings: RequestOptions, file: String? = nil, kept: Bool = false) {
        if settings.json { Console.line(ResultRecord.success(result, file: file, kept: kept, placeholders: settings.options.placeholders).text) }
        for line in problems(of: result, settings: settings) { Console.errorLine(line) }
        if settings.verbose { Console.errorLine(verbose(result, file: file, kept: kept) + lowDataWords(result, settings: settings)) }
        if settings.verbose { Console.errorLine(result.originalSource.description + ": timing " + ResultRecord.phasesLine(result.timing)) }
    }

    /// The `--verbose` line (without the prefix) of a delivered result: cache state, size, format,
    /// bytes, time, and the source loaded when it was not the one asked for.
    static func verbose(_ result: ImageResult, file: String? = nil, kept: Bool = false) -> String {
        var line = "\(result.originalSource.description): \(result.cache.rawValue), \(result.image.width)x\(result.image.height) \(result.image.format), \(result.image.bytes.count) bytes, \(result.milliseconds) ms"
        if let file { line += ", \(kept ? "kept (--no-clobber)" : "written to") \(ListParser.quoted(file, limit: 300, marks: false))" }
        else if kept { line += ", output kept (--no-clobber)" }
        if result.lowData && !result.reading.partial { line += ", low-data source \(result.source.description)" } else if result.source != result.originalSource { line += ", from \(result.source.description)" }
        line += readingWords(result)
        if result.evicted.count > 0 {
            let n = result.evicted.count
            line += ", evicted \(n) entr\(n == 1 ? "y" : "ies") (\(Formatting.size(result.evicted.bytes))) to stay within the cache's size limit"
        }
        return line
    }

    /// `-v` with `--low-data=auto`: what it resolved to and why, once a request asked (nothing
    /// when none needed to: a cache hit, or no low-data source).
    static func lowDataDecision(_ settings: RequestOptions) {
        guard settings.verbose, let answer = settings.networkConditions.probed else { return }
        let why = switch answer {
        case .metered: "on: NetworkManager reports the connection as metered"
        case .notMetered: "off: NetworkManager reports the connection as not metered"
        case .unknown: "off: NetworkManager does not know whether the connection is metered"
        case .unavailable: "off: NetworkManager could not be asked (busctl missing, no system bus or no NetworkManager)"
        }
        Console.errorLine("--low-data=auto resolved to " + why)
    }

    /// `-v`: what robots.txt and the opt-out signals ignored (a malformed Content-Usage, an
    /// unusable tdmrep.json), a line each.
    static func politenessNotes(_ pipeline: ImagePipeline, settings: RequestOptions) {
        guard settings.verbose, let politeness = pipeline.politeness else { return }
        for note in politeness.takeNotes() { Console.errorLine("note: " + note) }
    }

    static func failure(_ failure: RetrievalFailure, source: String, settings: RequestOptions) {
        if settings.json {
            Console.line((failure.error.policySkip != nil ? ResultRecord.skipped(failure, source: source) : ResultRecord.failure(failure, source: source)).text)
        }
        if !settings.quiet { for warning in failure.warnings { Console.errorLine("warning: " + warning) } }
        Console.errorLine(problem(of: failure, source: source))
        if settings.verbose { Console.errorLine(source + ": timing " + ResultRecord.phasesLine(failure.timing)) }
    }

    /// The run's end (`FetchRun.finish`): waits for the uploads still queued (at most --remote-timeout) and prints their warnings.
    static func finishUploads(_ run: FetchRun, settings: RequestOptions) async {
        guard run.remote != nil, let timeout = settings.remote?.timeout else { return }
        warnings(await run.finish(uploadTimeout: timeout).uploadWarnings, settings: settings)
    }

    /// The remote tier's warnings (failed or abandoned uploads), a line each unless quiet.
    static func warnings(_ warnings: [String], settings: RequestOptions) {
        if !settings.quiet { for warning in warnings { Console.errorLine("warning: " + warning) } }
    }

    static func exitCode(for error: FetchError) -> ExitCode { FailureClass.exitCode(for: [error]) }
}
