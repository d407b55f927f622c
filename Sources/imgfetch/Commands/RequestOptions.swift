import ArgumentKit
import ImageFetch

/// Turns the parsed options shared by `get` and `prefetch` into the library's data: processing,
/// fetch options, the cache and the network conditions. Bad values are usage errors (exit 2).
struct RequestOptions {
    var processing: Processing
    var options: FetchOptions
    /// Headers, credentials, TLS, proxy and speed of http(s) requests (`NetworkSettings`).
    var network: NetworkOptions
    var lowDataSource: Source?
    var alternatives: [Source]
    var cacheDirectory: String
    /// `--max-frames`: the processor's limit on an animation's frames.
    var maxFrames = 1000
    /// `--allow-jxl`: libvips' JXL loader is unblocked (process-wide, before libvips loads).
    var allowJXL = false
    var cacheSizeLimit: Int64?
    var lowDataMode: LowDataSetting
    /// The network conditions `lowDataMode` makes, one for the run: with `auto`, what its probe
    /// answered is read back for `-v` (`Report.lowDataDecision`).
    let networkConditions: NetworkConditions
    /// The remote cache tier (`RemoteSettings`); nil = none.
    var remote: RemoteSettings?
    /// `--limit-rate-total`: bytes per second of the whole run (`Limits.totalRate`); nil = none.
    var totalRate: Int64?
    /// The dead-host breaker (`--host-down-after`, `--host-down-ttl`, cleared by `--force-refresh`).
    var origins = OriginGate.Policy()
    /// robots.txt and the opt-out signals (`PolitenessSettings`, set by the command): none by default.
    var politeness = PolitenessPolicy()
    var json: Bool
    var quiet: Bool
    var verbose: Bool

    init(_ parsed: ParsedCommand, outputPath: String? = nil, environment: (String) -> String? = Console.environment) throws(UsageError) {
        var processing = Processing()
        if let size = parsed[OptionKeys.size] {
            let box = try RequestOptions.parseSize(size)
            processing.width = box.width
            processing.height = box.height
        }
        if let fit = try parsed[OptionKeys.fit] {
            processing.fit = Processing.Fit(rawValue: fit) ?? .inside
        }
        if let name = parsed[OptionKeys.format] {
            guard let format = ImageFormat(name: name) else {
                throw UsageError("invalid value '\(name)' for '--format': expected \(ImageFormat.namesForHelp)")
            }
            processing.format = format
            try RequestOptions.checkAuto(format, outputPath: outputPath)
        } else if let outputPath, let format = try RequestOptions.format(ofOutput: outputPath) {
            processing.format = format
        }
        processing.quality = try parsed[OptionKeys.quality]
        if let v = try parsed[OptionKeys.maxOutputBytes] {
            guard v > 0 else { throw UsageError("invalid value '0' for '--max-output-bytes': expected a size of at least 1 byte") }
            processing.maxOutputBytes = v
        }
        processing.linear = parsed[OptionKeys.linear]
        if let text = parsed[OptionKeys.background] {
            guard let color = RGBColor(parsing: text) else {
                throw UsageError("invalid value '\(text)' for '--background': expected a colour name (\(RGBColor.names.map(\.0).joined(separator: ", "))) or hex #RRGGBB")
            }
            processing.background = color
        }
        processing.accept = try RequestOptions.accept(parsed, format: processing.format)
        try RequestOptions.parseThumbnailOptions(parsed, into: &processing)
        self.processing = processing
        allowJXL = parsed[OptionKeys.allowJXL]

        var options = FetchOptions()
        options.placeholders = try RequestOptions.placeholders(parsed)
        if let v = try parsed[OptionKeys.retry] { options.retry.maxRetries = v }
        if let v = try parsed[OptionKeys.retryDelay] { options.retry.baseDelay = v }
        if let v = try parsed[OptionKeys.retryMaxTime] { options.retry.maxTime = v }
        if let v = try parsed[OptionKeys.timeout] { options.timeout = v }
        if let v = try parsed[OptionKeys.connectTimeout] { options.connectTimeout = v }
        if let v = try parsed[OptionKeys.hostDownAfter] { origins.downAfter = v }
        if let v = try parsed[OptionKeys.hostDownTTL] { origins.downTTL = min(v, 7 * 86400) }
        if let v = try parsed[OptionKeys.maxBytes] {
            guard v > 0 else { throw UsageError("invalid value '0' for '--max-bytes': expected a size of at least 1 byte") }
            options.maxBytes = v
        }
        if let v = try parsed[OptionKeys.maxPixels] { options.maxPixels = v }
        if let v = try parsed[OptionKeys.maxFrames] { maxFrames = v }
        if let v = try parsed[OptionKeys.ttl] { options.defaultTTL = v }
        if let v = try parsed[OptionKeys.failureTTL] { options.failureTTL = v }
        options.retryFailed = parsed[OptionKeys.retryFailed]
        options.keepOriginal = !parsed[OptionKeys.noKeepOriginal]
        options.saveData = !parsed[OptionKeys.noSaveData]
        if parsed[OptionKeys.partialProgressive] && parsed[OptionKeys.noPartialProgressive] {
            throw UsageError("--partial-progressive and --no-partial-progressive cannot be used together")
        }
        if parsed[OptionKeys.partialProgressive] { options.partialProgressive = .always }
        if parsed[OptionKeys.noPartialProgressive] { options.partialProgressive = .never }
        let policies = [OptionKeys.forceRefresh, OptionKeys.cacheOnly, OptionKeys.offline].filter { parsed[$0] }.map { $0.long }
        if policies.count > 1 {
            throw UsageError("--\(policies[0]) and --\(policies[1]) cannot be used together")
        }
        switch policies.first {
        case "force-refresh": options.cachePolicy = .forceRefresh
        case "cache-only": options.cachePolicy = .cacheOnly
        case "offline": options.cachePolicy = .offline
        default: break
        }
        self.options = options
        network = try NetworkSettings.parse(parsed, environment: environment)
        remote = try RemoteSettings.tier(from: parsed, environment: environment, proxy: network.proxy, noProxy: network.noProxy)
        totalRate = try NetworkSettings.totalRate(parsed)
        // The overall cap is the curl engine's: the tier's reads go through it too.
        if totalRate != nil { remote?.store.directReads = false }

        lowDataSource = try parsed[OptionKeys.lowDataSource].map { text throws(UsageError) in try RequestOptions.source(text, option: "--low-data-source") }
        alternatives = try parsed[OptionKeys.alt].map { text throws(UsageError) in try RequestOptions.source(text, option: "--alt") }
        lowDataMode = try LowDataSetting.resolve(flag: parsed.given(OptionKeys.lowData), value: parsed[OptionKeys.lowData], environment: environment)
        networkConditions = lowDataMode.network

        cacheDirectory = try RequestOptions.cacheDirectory(parsed[OptionKeys.cacheDir], environment: environment)
        var limit = try parsed[OptionKeys.cacheSizeLimit]
        if limit == nil { limit = try RequestOptions.fromEnvironment("IMGFETCH_CACHE_SIZE_LIMIT", environment, ValueParsers.byteSize) }
        if let limit {
            cacheSizeLimit = limit == 0 ? nil : limit
        } else {
            cacheSizeLimit = 1 << 30
        }
        json = parsed[OptionKeys.json]
        quiet = parsed[OptionKeys.quiet]
        verbose = parsed[OptionKeys.verbose]
    }

    /// `-k`'s and `--remote-insecure`'s warnings, each naming what is not verified, every time
    /// (even with --quiet).
    func warnOfUnverifiedTLS() {
        if network.tls.insecure { Console.errorLine(NetworkSettings.insecureWarning) }
        if remote?.store.tls.insecure == true { Console.errorLine(RemoteSettings.insecureWarning) }
    }

    func request(for source: Source, lowDataSource: Source? = nil, alternatives: [Source] = [],
                 network: NetworkOptions? = nil) -> ImageRequest {
        ImageRequest(source: source, processing: processing, lowDataSource: lowDataSource ?? self.lowDataSource,
                     alternativeSources: alternatives.isEmpty ? self.alternatives : alternatives, options: options,
                     network: network ?? self.network)
    }

    /// The format `-o FILE`'s extension names (nil for `-` or no extension); an extension that
    /// names no output format is a usage error rather than a file of another format.
    static func format(ofOutput path: String) throws(UsageError) -> ImageFormat? {
        guard path != "-" else { return nil }
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = String(name[name.index(after: dot)...])
        guard let format = ImageFormat(fileExtension: ext) else {
            throw UsageError("'-o \(path)': the extension '.\(ext)' names no output format (\(ImageFormat.extensionsForHelp)); rename the file or give --format")
        }
        return format
    }

    /// `WxH`, `W`, or `xH`, each side 1...100000 in decimal digits; an `x` needs a side after it
    /// (`200x`, `x`, `200x0` are usage errors naming the forms).
    static func parseSize(_ text: String) throws(UsageError) -> (width: Int?, height: Int?) {
        let forms = "expected WxH, W or xH (e.g. 320x240, 320 or x240) with sides 1-100000"
        let parts = text.lowercased().split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        func side(_ s: String) throws(UsageError) -> Int? {
            if s.isEmpty { return nil }
            guard s.utf8.count <= 6, s.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let v = Int(s), (1...100_000).contains(v) else {
                throw UsageError("invalid value '\(text)' for '--size': \(forms)")
            }
            return v
        }
        let width = try side(parts[0])
        let height = parts.count > 1 ? try side(parts[1]) : nil
        if height == nil && (parts.count > 1 || width == nil) {
            throw UsageError("invalid value '\(text)' for '--size': \(forms)")
        }
        return (width, height)
    }

    static func pixelCount(_ text: String) throws(UsageError) -> Int64 {
        let lower = text.lowercased()
        let multiplier: Int64 = lower.hasSuffix("m") ? 1_000_000 : lower.hasSuffix("k") ? 1_000 : 1
        let digits = multiplier == 1 ? lower : String(lower.dropLast())
        let (product, overflow) = (Int64(digits) ?? 0).multipliedReportingOverflow(by: multiplier)
        guard let v = Int64(digits), v > 0, !overflow else {
            throw UsageError("invalid value '\(text)' for '--max-pixels': expected a positive number (K, M suffixes)")
        }
        return product
    }

    static func source(_ text: String, option: String) throws(UsageError) -> Source {
        do { return try Source(parsing: text) } catch {
            throw UsageError("invalid value for '\(option)': " + error.message(naming: Source.abbreviated(text)))
        }
    }

    /// A variable's value converted by `convert` (nil when unset or empty); a bad value is a usage
    /// error that names the variable: `invalid value 'lots' for IMGFETCH_CACHE_SIZE_LIMIT: ...`.
    static func fromEnvironment<T>(_ name: String, _ environment: (String) -> String?,
                                   _ convert: (String) throws(UsageError) -> T) throws(UsageError) -> T? {
        guard let text = environment(name), !text.isEmpty else { return nil }
        do { return try convert(text) } catch { throw UsageError("invalid value '\(text)' for \(name): \(error.message)") }
    }

    /// `--cache-dir`, else `$IMGFETCH_CACHE_DIR`, else `$XDG_CACHE_HOME/imgfetch` (when absolute), else
    /// `$HOME/.cache/imgfetch` (when absolute), else the passwd entry's home. Empty values are skipped.
    static func cacheDirectory(_ option: String?, environment: (String) -> String?) throws(UsageError) -> String {
        if let option, !option.isEmpty { return option }
        if let dir = environment("IMGFETCH_CACHE_DIR"), !dir.isEmpty { return dir }
        if let xdg = environment("XDG_CACHE_HOME"), xdg.hasPrefix("/") { return xdg + "/imgfetch" }
        if let home = environment("HOME"), home.hasPrefix("/") { return home.trimmingTrailingSlashes + "/.cache/imgfetch" }
        if let home = Console.passwdHome(), home.hasPrefix("/") { return home.trimmingTrailingSlashes + "/.cache/imgfetch" }
        throw UsageError("no cache directory: HOME is not set and there is no passwd entry with a home; give --cache-dir DIR or set IMGFETCH_CACHE_DIR")
    }
}

/// `--low-data[=1|0|auto]` and `IMGFETCH_LOW_DATA`; the option wins over the environment.
enum LowDataSetting {
    case off, on
    /// NetworkManager's metered flag decides, asked only when a request needs the answer.
    case auto

    var network: NetworkConditions {
        switch self {
        case .off: NetworkConditions(isConstrained: false)
        case .on: NetworkConditions(isConstrained: true)
        case .auto: NetworkConditions(probe: MeteredNetworkProbe.systemDefault)
        }
    }

    static func resolve(flag: Bool, value: String?, environment: (String) -> String?) throws(UsageError) -> LowDataSetting {
        let setting: String
        if flag {
            setting = value ?? "1"
        } else if let env = environment("IMGFETCH_LOW_DATA"), !env.isEmpty {
            setting = env
        } else {
            return .off
        }
        switch setting.lowercased() {
        case "1", "true", "yes", "on": return .on
        case "0", "false", "no", "off": return .off
        case "auto": return .auto
        default:
            let name = flag ? "'--low-data'" : "IMGFETCH_LOW_DATA"
            throw UsageError("invalid value '\(setting)' for \(name): expected 1, 0 or auto")
        }
    }
}

extension String {
    /// `/home/me/` -> `/home/me`; `/` -> `` (so appending `/.cache` gives `/.cache`, still absolute).
    var trimmingTrailingSlashes: String {
        var s = Substring(self)
        while s.hasSuffix("/") { s = s.dropLast() }
        return String(s)
    }
}
