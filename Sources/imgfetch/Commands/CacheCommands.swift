import ArgumentKit
import ImageFetch

/// `imgfetch cache ls|info|rm|clear|prune|verify|stats|path|gallery|sheet`.
enum CacheCommands {
    static func run(_ parsed: ParsedCommand) throws(UsageError) -> ExitCode {
        let directory = RequestOptions.cacheDirectory(parsed.value("cache-dir"), environment: Console.environment)
        let cache = DiskCache(directory: directory, sizeLimit: nil)
        switch parsed.path.dropFirst().first {
        case "path":
            Console.line(directory)
            return .ok
        case "ls": return try CacheListCommand.run(parsed, cache)
        case "info": return try info(parsed, cache)
        case "rm": return try remove(parsed, cache)
        case "clear":
            let n = cache.clear()
            Console.line("removed \(n) entr\(n == 1 ? "y" : "ies")")
            return .ok
        case "prune": return try prune(parsed, cache)
        case "verify": return verify(parsed, cache)
        case "stats": return stats(parsed, cache)
        case "gallery": return try CacheGalleryCommand.run(parsed, cache)
        case "sheet": return try CacheSheetCommand.run(parsed, cache)
        default: throw UsageError("missing cache command (ls, info, rm, clear, prune, verify, stats, path, gallery, sheet)", commandPath: ["cache"])
        }
    }

    static func record(_ e: CacheEntry, _ cache: DiskCache) -> JSONObject {
        var o = JSONObject()
        o.add("key", e.key)
        o.add("source", e.source)
        o.add("variant", e.variant)
        o.add("path", cache.dataPath(e.key, format: e.format))
        o.add("bytes", e.bytes)
        o.add("width", e.width)
        o.add("height", e.height)
        o.add("format", e.format)
        o.add("created", Formatting.timestamp(e.created))
        o.add("expires", e.expires.map(Formatting.timestamp))
        o.add("last_access", Formatting.timestamp(e.lastAccess))
        o.add("fresh", e.isFresh(at: FileSystem.now()))
        o.add("etag", e.etag)
        o.add("last_modified", e.lastModified)
        o.add("checksum", e.checksum)
        return o
    }

    static func info(_ parsed: ParsedCommand, _ cache: DiskCache) throws(UsageError) -> ExitCode {
        let text = parsed.positional("SOURCE|KEY") ?? ""
        let entries: [CacheEntry]
        switch try CacheReference.resolve(text, cache, command: "info") {
        case .entries(let found): entries = found
        case .ambiguous(let candidates):
            CacheReference.reportAmbiguous(text, candidates)
            return .usage
        }
        guard !entries.isEmpty else {
            Console.errorLine("\(text): not in the cache")
            return .failed
        }
        for e in entries {
            if parsed.flag("json") {
                Console.line(record(e, cache).text)
            } else {
                let now = FileSystem.now()
                let rows = [["key", e.key], ["source", e.source], ["variant", e.variant],
                            ["path", cache.dataPath(e.key, format: e.format)], ["size", "\(e.bytes) bytes"],
                            ["dimensions", "\(e.width)x\(e.height)"], ["format", e.format],
                            ["created", Formatting.timestamp(e.created)],
                            ["expires", e.expires.map(Formatting.timestamp).map { $0 + " (\(Formatting.expiry(e, now: now)))" } ?? "never"],
                            ["last access", Formatting.timestamp(e.lastAccess)], ["etag", e.etag ?? "-"],
                            ["last-modified", e.lastModified ?? "-"], ["checksum", e.checksum]]
                Console.out(Formatting.table(rows.map { [$0[0] + ":", $0[1]] }) + (entries.count > 1 ? "\n" : ""))
            }
        }
        return .ok
    }

    static func remove(_ parsed: ParsedCommand, _ cache: DiskCache) throws(UsageError) -> ExitCode {
        // Every argument is resolved before anything is removed: an ambiguous one removes nothing.
        var resolved: [(text: String, entries: [CacheEntry])] = []
        for text in parsed.positionalValues("SOURCE|KEY") {
            switch try CacheReference.resolve(text, cache, command: "rm") {
            case .entries(let entries): resolved.append((text, entries))
            case .ambiguous(let candidates):
                CacheReference.reportAmbiguous(text, candidates)
                return .usage
            }
        }
        var code = ExitCode.ok
        for (text, entries) in resolved {
            if entries.isEmpty {
                Console.errorLine("\(text): not in the cache")
                code = .failed
                continue
            }
            for e in entries { cache.remove(e) }
            Console.line("removed \(entries.count) entr\(entries.count == 1 ? "y" : "ies") of \(entries[0].source)")
        }
        return code
    }

    static func prune(_ parsed: ParsedCommand, _ cache: DiskCache) throws(UsageError) -> ExitCode {
        let maxSize = try parsed.parse("max-size", ValueParsers.byteSize)
        let expired = parsed.flag("expired") || maxSize == nil
        let removed = cache.prune(expired: expired, maxSize: maxSize)
        Console.line("removed \(removed.count) entr\(removed.count == 1 ? "y" : "ies") (\(Formatting.size(removed.bytes)))")
        return .ok
    }

    static func verify(_ parsed: ParsedCommand, _ cache: DiskCache) -> ExitCode {
        let processor = VipsProcessor()
        let repair = parsed.flag("repair")
        let (checked, problems) = cache.verify(repair: repair, decodes: { processor.decodeFailure($0) })
        for p in problems {
            Console.line("\(repair ? "removed" : "bad") \(p.key.prefix(12)) \(p.source.isEmpty ? "-" : p.source): \(p.reason)")
        }
        Console.err("imgfetch: checked \(checked) entr\(checked == 1 ? "y" : "ies"), \(problems.count) problem\(problems.count == 1 ? "" : "s")\(repair && !problems.isEmpty ? " repaired" : "")\n")
        return problems.isEmpty || repair ? .ok : .failed
    }

    static func stats(_ parsed: ParsedCommand, _ cache: DiskCache) -> ExitCode {
        let s = cache.statistics()
        if parsed.flag("json") {
            var o = JSONObject()
            o.add("directory", cache.directory)
            o.add("entries", s.entries)
            o.add("bytes", s.bytes)
            o.add("originals", s.originals)
            o.add("original_bytes", s.originalBytes)
            o.add("variants", s.variants)
            o.add("variant_bytes", s.variantBytes)
            o.add("expired", s.expired)
            o.add("oldest", s.oldest.map(Formatting.timestamp))
            o.add("newest", s.newest.map(Formatting.timestamp))
            Console.line(o.text)
        } else {
            let rows = [["directory:", cache.directory], ["entries:", "\(s.entries) (\(s.expired) expired)"],
                        ["bytes:", "\(s.bytes) (\(Formatting.size(s.bytes)))"],
                        ["originals:", "\(s.originals) (\(Formatting.size(s.originalBytes)))"],
                        ["variants:", "\(s.variants) (\(Formatting.size(s.variantBytes)))"],
                        ["oldest:", s.oldest.map(Formatting.timestamp) ?? "-"], ["newest:", s.newest.map(Formatting.timestamp) ?? "-"]]
            Console.out(Formatting.table(rows))
        }
        return .ok
    }
}
