import ArgumentKit
import ImageFetch

/// `imgfetch get [options] SOURCE`: one retrieval, the image to stdout or `-o FILE`.
enum GetCommand {
    static func run(_ parsed: ParsedCommand) async throws(UsageError) -> ExitCode {
        let sourceText = parsed.positional("SOURCE") ?? ""
        let output = parsed.value("output")
        let settings = try RequestOptions(parsed, outputPath: output)
        let source: Source
        do { source = try Source(parsing: sourceText) } catch {
            throw UsageError("\(Source.abbreviated(sourceText)): \(error.message)")
        }
        if settings.json && output == "-" {
            throw UsageError("--json prints records on stdout: give the image a file with -o FILE", commandPath: ["get"])
        }
        // Decide where the image goes before doing any work.
        let destination: Destination
        if let output, output != "-" {
            destination = .file(output)
        } else if output == "-" || !settings.json {
            if Console.stdoutIsTerminal {
                throw UsageError("refusing to write binary image data to a terminal: use -o FILE, or redirect stdout")
            }
            destination = .stdout
        } else {
            destination = .none
        }

        let pipeline = Pipelines.make(settings)
        let outcome = await pipeline.retrieve(settings.request(for: source))
        switch outcome {
        case .failure(let failure):
            Report.failure(failure, source: source.description, settings: settings)
            return Report.exitCode(for: failure.error)
        case .success(let result):
            if let problem = destination.write(result.image.bytes) {
                Console.errorLine("\(source.description): \(problem)")
                return .failed
            }
            Report.success(result, settings: settings)
            return result.cacheError == nil ? .ok : .cacheUnusable
        }
    }

    enum Destination {
        case stdout, file(String), none

        /// Writes the image; a message on failure. A file is replaced atomically (never half-written).
        func write(_ bytes: [UInt8]) -> String? {
            switch self {
            case .none: return nil
            case .stdout: return Console.write(fd: 1, bytes) ? nil : "cannot write the image to stdout"
            case .file(let path):
                let slash = path.lastIndex(of: "/")
                let dir = slash.map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
                do {
                    try FileSystem.writeAtomically(bytes, to: path, temporaryDirectory: dir, sync: false)
                    return nil
                } catch {
                    return "cannot write \(path): \(error.message)"
                }
            }
        }
    }
}

/// Builds the pipeline a command runs: the disk cache, the loader (libcurl on demand), libvips on demand.
enum Pipelines {
    static func make(_ settings: RequestOptions, maxConnections: Int = 0, maxPerHost: Int = 0, rate: Double? = nil) -> ImagePipeline {
        let cache = DiskCache(directory: settings.cacheDirectory, sizeLimit: settings.cacheSizeLimit)
        var loader: any DataLoading = SourceLoader(network: settings.lowDataMode.network,
                                                   maxConnections: maxConnections, maxPerHost: maxPerHost)
        if let rate { loader = RateLimitedLoader(loader, limiter: RateLimiter(perSecond: rate)) }
        return ImagePipeline(cache: cache, loader: CoalescingLoader(loader), processor: VipsProcessor(maxFrames: settings.maxFrames))
    }
}

/// How results and failures are told: JSON records on stdout, one line per problem on stderr.
enum Report {
    /// The stderr lines (without the `imgfetch: ` prefix) a delivered result has: its warnings
    /// (unless quiet), then a cache error.
    static func problems(of result: ImageResult, settings: RequestOptions) -> [String] {
        var lines = settings.quiet ? [] : result.warnings.map { "warning: " + $0 }
        if let cacheError = result.cacheError { lines.append("\(result.originalSource.description): \(cacheError.message)") }
        return lines
    }

    /// The stderr line (without the prefix) of a failure, naming the source.
    static func problem(of failure: RetrievalFailure, source: String) -> String {
        "\(source): \(failure.error.message)"
    }

    static func success(_ result: ImageResult, settings: RequestOptions) {
        if settings.json { Console.line(ResultRecord.success(result).text) }
        for line in problems(of: result, settings: settings) { Console.errorLine(line) }
        if settings.verbose {
            var line = "\(result.originalSource.description): \(result.cache.rawValue), \(result.image.width)x\(result.image.height) \(result.image.format), \(result.image.bytes.count) bytes, \(result.milliseconds) ms"
            if result.lowData { line += ", low-data source \(result.source.description)" } else if result.source != result.originalSource { line += ", from \(result.source.description)" }
            Console.err("imgfetch: " + line + "\n")
        }
    }

    static func failure(_ failure: RetrievalFailure, source: String, settings: RequestOptions) {
        if settings.json { Console.line(ResultRecord.failure(failure, source: source).text) }
        Console.errorLine(problem(of: failure, source: source))
    }

    static func exitCode(for error: FetchError) -> ExitCode {
        if error.isNotCached { return .notCached }
        if case .cacheUnavailable = error { return .cacheUnusable }
        return .failed
    }
}
