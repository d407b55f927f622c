import ArgumentKit
import ImageFetch

/// `imgfetch get [options] SOURCE`: one retrieval, the image to stdout or `-o FILE`.
enum GetCommand {
    static func run(_ parsed: ParsedCommand) async throws(UsageError) -> ExitCode {
        let sourceTexts = parsed.positionalValues("SOURCE")
        let sourceText = sourceTexts.first ?? ""
        let output = parsed.value("output")
        if let outputDir = try OutputDirectory.from(parsed) {
            if output != nil { throw UsageError("-o and --output-dir cannot be used together", commandPath: ["get"]) }
            return try await runMany(sourceTexts, parsed: parsed, outputDir: outputDir)
        }
        if sourceTexts.count > 1 {
            throw UsageError("several sources need --output-dir DIR (-o writes one file)", commandPath: ["get"])
        }
        let settings = try RequestOptions(parsed, outputPath: output)
        settings.warnOfUnverifiedTLS()
        let source: Source
        do { source = try Source(parsing: sourceText) } catch {
            throw UsageError(error.message(naming: Source.abbreviated(sourceText)), commandPath: ["get"])
        }
        if settings.json && output == "-" {
            throw UsageError("--json prints records on stdout: give the image a file with -o FILE", commandPath: ["get"])
        }
        // Decide where the image goes before doing any work.
        let destination: Destination
        if let output, output != "-" {
            // A directory or a dangling link is a bad -o value: said before anything is fetched.
            do { _ = try FileSystem.outputKind(output) } catch {
                throw UsageError("invalid value '\(output)' for '-o': \(error.message)", commandPath: ["get"])
            }
            destination = .file(output, createDirs: parsed.flag("create-dirs"), keepingExisting: parsed.flag("no-clobber"))
        } else if output == "-" || !settings.json {
            if Console.stdoutIsTerminal {
                throw UsageError("refusing to write binary image data to a terminal: use -o FILE, or redirect stdout")
            }
            destination = .stdout
        } else {
            destination = .none
        }

        let remote = try settings.remote?.remoteCache()
        let pipeline = Pipelines.make(settings, remote: remote, deferredScans: true)
        defer { CookieJarFile.write(settings.network) }
        let meter = FeedbackOptions.showsMeter(parsed, quiet: settings.quiet)
        let outcome = await GetFeedback.retrieve(settings.request(for: source), with: pipeline, meter: meter, quiet: settings.quiet)
        Report.lowDataDecision(settings)
        defer { BackgroundScan.startIfWanted(pipeline.cache, settings: settings) }
        switch outcome {
        case .failure(let failure):
            Report.failure(failure, source: source.description, settings: settings)
            return Report.exitCode(for: failure.error)
        case .success(var result):
            let (kept, problem) = destination.write(result.image.bytes)
            if let problem {
                Console.errorLine("\(source.description): \(problem)")
                return .failed
            }
            // The cache ends within its limit (another process's store may have left it over).
            result.evicted.add(pipeline.cache.fitLimit())
            // The image is out; its upload (if any) is waited for, its failure a warning of the record.
            if let remote, let timeout = settings.remote?.timeout {
                result.warnings += await remote.uploader.finish(timeout: timeout)
            }
            Report.success(result, settings: settings, kept: kept)
            // Within a stale-while-revalidate window: the image is out; now bring the entry up to date.
            if result.needsRevalidation {
                _ = await pipeline.revalidate(settings.request(for: source))
                await Report.finishUploads(remote, settings: settings)
            }
            return result.cacheError == nil ? .ok : .cacheUnusable
        }
    }

    /// `get SOURCE... --output-dir DIR`: one retrieval after the other in one process, each image
    /// written to DIR (names as prefetch's, {line} = the source's position). Exit code: 1 when any
    /// failed (3 when every failure is not-cached), else 4 after a cache error, else 0.
    static func runMany(_ texts: [String], parsed: ParsedCommand, outputDir: OutputDirectory) async throws(UsageError) -> ExitCode {
        let settings = try RequestOptions(parsed)
        settings.warnOfUnverifiedTLS()
        var sources: [Source] = []
        for text in texts {
            do { sources.append(try Source(parsing: text)) } catch {
                throw UsageError("\(Source.abbreviated(text)): \(error.message)")
            }
        }
        let remote = try settings.remote?.remoteCache()
        let pipeline = Pipelines.make(settings, remote: remote, deferredScans: true)
        defer { CookieJarFile.write(settings.network) }
        defer { BackgroundScan.startIfWanted(pipeline.cache, settings: settings) }
        var failed = 0, notCached = 0, cacheErrors = 0
        let meter = FeedbackOptions.showsMeter(parsed, quiet: settings.quiet)
        for (index, source) in sources.enumerated() {
            let outcome = await GetFeedback.retrieve(settings.request(for: source), with: pipeline, meter: meter, quiet: settings.quiet)
            switch outcome.flatMap({ result in outputDir.write(result, source: source, line: index + 1).map { (result, $0) } }) {
            case .failure(let failure):
                Report.failure(failure, source: source.description, settings: settings)
                failed += 1
                if failure.error.isNotCached { notCached += 1 }
            case .success(let (result, file)):
                Report.success(result, settings: settings, file: file.path, kept: file.kept)
                if result.cacheError != nil { cacheErrors += 1 }
            }
            // Uploads that failed meanwhile: a warning line each, as they come.
            if let remote { Report.warnings(await remote.uploader.takeWarnings(), settings: settings) }
        }
        if let remote, let timeout = settings.remote?.timeout {
            Report.warnings(await remote.uploader.finish(timeout: timeout), settings: settings)
        }
        Report.lowDataDecision(settings)
        pipeline.cache.fitLimit()
        if failed > 0 { return failed == notCached ? .notCached : .failed }
        return cacheErrors > 0 ? .cacheUnusable : .ok
    }

    enum Destination {
        /// `-o FILE`; `createDirs`: its missing directories are made first (curl's `--create-dirs`);
        /// `keepingExisting`: a file already there is kept (`--no-clobber`).
        case stdout, file(String, createDirs: Bool, keepingExisting: Bool), none

        /// Writes the image: whether a file already there was kept, or a message on failure. A
        /// regular file is replaced atomically (never half-written); a device, FIFO or descriptor
        /// name is written in place (`FileSystem.writeOutput`).
        func write(_ bytes: [UInt8]) -> (kept: Bool, problem: String?) {
            switch self {
            case .none: return (false, nil)
            case .stdout: return (false, Console.write(fd: 1, bytes) ? nil : "cannot write the image to stdout")
            case .file(let path, let createDirs, let keepingExisting):
                let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
                do {
                    if createDirs, !parent.isEmpty { try FileSystem.makeDirectories(parent) }
                    return (!(try FileSystem.writeOutput(bytes, to: path, keepingExisting: keepingExisting)), nil)
                } catch {
                    let hint = !createDirs && !parent.isEmpty && !FileSystem.isDirectory(parent) ? " (--create-dirs makes its directories)" : ""
                    return (false, "cannot write \(path): \(error.message)\(hint)")
                }
            }
        }
    }
}

/// Builds the pipeline a command runs: the disk cache, the loader (libcurl on demand), libvips on demand.
enum Pipelines {
    /// `deferredScans`: a store never scans the whole cache (`get`, which a loop runs again and again);
    /// `BackgroundScan.startIfWanted` then runs the scan in another process.
    static func make(_ settings: RequestOptions, limits: Limits = Limits(), remote: RemoteCache? = nil,
                     deferredScans: Bool = false) -> ImagePipeline {
        if settings.allowJXL { VipsBridge.allowJXL() }
        var limits = limits
        limits.totalRate = settings.totalRate
        if settings.network.usesCookieEngine { CurlEngine.shared.useCookies(settings.network.cookieFile?.cookies.map(\.line) ?? []) }
        return ImagePipeline.make(cache: DiskCache(directory: settings.cacheDirectory, sizeLimit: settings.cacheSizeLimit,
                                                   deferredScans: deferredScans),
                                  network: settings.networkConditions, limits: limits, maxFrames: settings.maxFrames, remote: remote)
    }
}

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
        if settings.verbose { Console.errorLine(verbose(result, file: file, kept: kept)) }
        if settings.verbose { Console.errorLine(result.originalSource.description + ": timing " + ResultRecord.phasesLine(result.timing)) }
    }

    /// The `--verbose` line (without the prefix) of a delivered result: cache state, size, format,
    /// bytes, time, and the source loaded when it was not the one asked for.
    static func verbose(_ result: ImageResult, file: String? = nil, kept: Bool = false) -> String {
        var line = "\(result.originalSource.description): \(result.cache.rawValue), \(result.image.width)x\(result.image.height) \(result.image.format), \(result.image.bytes.count) bytes, \(result.milliseconds) ms"
        if let file { line += ", \(kept ? "kept (--no-clobber)" : "written to") \(ListParser.quoted(file, limit: 300, marks: false))" }
        else if kept { line += ", output kept (--no-clobber)" }
        if result.lowData { line += ", low-data source \(result.source.description)" } else if result.source != result.originalSource { line += ", from \(result.source.description)" }
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

    static func failure(_ failure: RetrievalFailure, source: String, settings: RequestOptions) {
        if settings.json { Console.line(ResultRecord.failure(failure, source: source).text) }
        if !settings.quiet { for warning in failure.warnings { Console.errorLine("warning: " + warning) } }
        Console.errorLine(problem(of: failure, source: source))
        if settings.verbose { Console.errorLine(source + ": timing " + ResultRecord.phasesLine(failure.timing)) }
    }

    /// Waits for the uploads still queued (at most --remote-timeout) and prints their warnings.
    static func finishUploads(_ remote: RemoteCache?, settings: RequestOptions) async {
        guard let remote, let timeout = settings.remote?.timeout else { return }
        warnings(await remote.uploader.finish(timeout: timeout), settings: settings)
    }

    /// The remote tier's warnings (failed or abandoned uploads), a line each unless quiet.
    static func warnings(_ warnings: [String], settings: RequestOptions) {
        if !settings.quiet { for warning in warnings { Console.errorLine("warning: " + warning) } }
    }

    static func exitCode(for error: FetchError) -> ExitCode {
        if error.isNotCached { return .notCached }
        if case .cacheUnavailable = error { return .cacheUnusable }
        return .failed
    }
}
