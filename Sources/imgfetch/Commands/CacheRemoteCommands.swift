import ArgumentKit
import ImageFetch

/// `imgfetch cache push` and `cache pull [--shard K/N]`: whole entries copied between the local
/// cache and the remote cache tier (`--remote-cache URL` or `IMGFETCH_REMOTE_CACHE`). One line per
/// failure and a summary on stderr; exit 1 when anything failed.
enum CacheRemoteCommands {
    static func run(_ parsed: ParsedCommand) async throws(UsageError) -> ExitCode {
        let command = parsed.path.dropFirst().first ?? ""
        let directory = try RequestOptions.cacheDirectory(parsed[OptionKeys.cacheDir], environment: Console.environment)
        guard let settings = try RemoteSettings.make(from: parsed, environment: Console.environment) else {
            throw UsageError("cache \(command) needs --remote-cache URL (or IMGFETCH_REMOTE_CACHE)", commandPath: parsed.path)
        }
        if settings.tls.insecure { Console.errorLine(RemoteSettings.insecureWarning) }
        let store: any RemoteStoring
        do { store = try RemoteStores.make(settings) } catch {
            if case .invalidSource(let message) = error { throw UsageError(message, commandPath: parsed.path) }
            throw UsageError("remote cache: " + error.message, commandPath: parsed.path)
        }
        let summary: RemoteSyncSummary
        if command == "push" {
            summary = await told(RemoteSync.push(DiskCache(directory: directory, sizeLimit: nil), to: store))
            Console.err("imgfetch: pushed \(summary.copied), skipped \(summary.skipped) (already there or not valid), failed \(summary.failed)"
                        + "\(summary.gaveUp ? " (gave up after \(RemoteSync.giveUpAfter) failures in a row)" : "") to \(store.description)\n")
        } else {
            let shard = try ShardSetting.from(parsed)
            var limit = try RequestOptions.fromEnvironment("IMGFETCH_CACHE_SIZE_LIMIT", Console.environment, ValueParsers.byteSize)
            if limit == nil { limit = 1 << 30 }
            // The same cap as a lookup's (get's --max-bytes and its default).
            var maxBytes = FetchOptions().maxBytes
            if let v = try parsed[OptionKeys.maxBytes] {
                guard v > 0 else { throw UsageError("invalid value '0' for '--max-bytes': expected a size of at least 1 byte", commandPath: parsed.path) }
                maxBytes = v
            }
            let cache = DiskCache(directory: directory, sizeLimit: limit == 0 ? nil : limit)
            summary = await told(RemoteSync.pull(from: store, into: cache, shard: shard, maxBytes: maxBytes))
            Console.err("imgfetch: pulled \(summary.copied), skipped \(summary.skipped) (already valid here), failed \(summary.failed)"
                        + "\(summary.gaveUp ? " (gave up after \(RemoteSync.giveUpAfter) failures in a row)" : "") from \(store.description)\n")
        }
        return summary.failed > 0 ? .failed : .ok
    }

    /// Reads a run's events: a line on stderr per failure as it comes; the summary, last.
    static func told(_ events: RemoteSync.Events) async -> RemoteSyncSummary {
        var summary = RemoteSyncSummary()
        for await event in events {
            switch event {
            case .failure(let message): Console.errorLine(TerminalText.escaped(message))
            case .finished(let last): summary = last
            }
        }
        return summary
    }
}
