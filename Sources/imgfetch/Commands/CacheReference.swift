import ArgumentKit
import ImageFetch

/// What `cache info` and `cache rm` were given: a source (all its variants) or a key.
///
/// - `key:PREFIX` is always a key; `./PREFIX` (or any text with a `/` or a scheme) always a source.
/// - Otherwise 6 to 64 hex digits are a key prefix (unique, as git's), unless a file of that name
///   exists: then it is that source. A prefix no key starts with is tried as a path last.
/// - A prefix that several keys start with is an error listing them (exit 2).
enum CacheReference {
    enum Resolution {
        case entries([CacheEntry])
        /// A key prefix several keys start with: the candidates (at most 16).
        case ambiguous([CacheEntry])
    }

    static func resolve(_ text: String, _ cache: DiskCache, command: String) throws(UsageError) -> Resolution {
        if text.lowercased().hasPrefix("key:") {
            let prefix = String(text.dropFirst(4))
            guard DiskCache.isKeyPrefix(prefix) else {
                throw UsageError("\(Source.abbreviated(text)): a key is \(DiskCache.minimumKeyPrefix) to 64 hex digits", commandPath: ["cache", command])
            }
            return byKeyPrefix(prefix, cache)
        }
        if DiskCache.isKeyPrefix(text) && FileSystem.status(text) == nil {
            // No file of that name: a key prefix (only one shard directory is read), and only when no
            // key starts with it, the path of a file that is gone but still cached.
            if case .entries(let found) = byKeyPrefix(text, cache), found.isEmpty {
                return .entries(try bySource(text, cache, command: command))
            }
            return byKeyPrefix(text, cache)
        }
        let found = try bySource(text, cache, command: command)
        // `cache info 000`: meant as a key, too short to be one (and no file of that name is cached).
        if found.isEmpty, (1..<DiskCache.minimumKeyPrefix).contains(text.utf8.count), text.allSatisfy(\.isHexDigit) {
            throw UsageError("'\(text)': a key prefix needs at least \(DiskCache.minimumKeyPrefix) hex digits (as cache ls prints them), and no source of that name is cached", commandPath: ["cache", command])
        }
        return .entries(found)
    }

    static func byKeyPrefix(_ prefix: String, _ cache: DiskCache) -> Resolution {
        let keys = cache.keys(withPrefix: prefix, limit: 16)
        let entries = keys.compactMap { cache.entry(forKey: $0) }
        return entries.count > 1 ? .ambiguous(entries) : .entries(entries)
    }

    static func bySource(_ text: String, _ cache: DiskCache, command: String) throws(UsageError) -> [CacheEntry] {
        do {
            let source = try Source(parsing: text)
            // Without a secret, nothing with credentials was ever stored (and a lookup makes none).
            if source.hasCredentials && !cache.credentials.secretExists { return [] }
            return cache.entries(forIdentity: try source.identity(credentials: cache.credentials))
        } catch {
            throw UsageError("\(Source.abbreviated(text)): not a source or a cache key", commandPath: ["cache", command])
        }
    }

    /// The error for an ambiguous prefix: one line, then one indented line per candidate.
    static func reportAmbiguous(_ text: String, _ candidates: [CacheEntry]) {
        Console.errorLine("\(TerminalText.escaped(text)): ambiguous key prefix; the candidates are:")
        for e in candidates {
            Console.err("  \(e.key)  \(TerminalText.escaped(e.variant))  \(TerminalText.escaped(e.source))\n")
        }
    }
}
