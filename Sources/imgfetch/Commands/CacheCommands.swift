#if canImport(Glibc)
import Glibc
#endif
import ArgumentKit
import ImageFetch

/// `imgfetch cache ls|info|rm|clear|prune|verify|stats|path|gallery|sheet`.
enum CacheCommands {
    static func run(_ parsed: ParsedCommand) throws(UsageError) -> ExitCode {
        let directory = try RequestOptions.cacheDirectory(parsed[OptionKeys.cacheDir], environment: Console.environment)
        let cache = DiskCache(directory: directory, sizeLimit: nil)
        let command = parsed.path.dropFirst().first
        if command == "path" {
            Console.line(directory)
            return .ok
        }
        // Every other command tags a directory an earlier imgfetch made; one that holds anything
        // imgfetch does not make is never removed from.
        if let foreign = cache.claim(), removes(parsed) {
            Console.errorLine("refusing to remove anything from \(TerminalText.escaped(directory)): it has no \(CacheLayout.tagName) "
                + "and holds \(TerminalText.escaped(foreign)), which imgfetch does not make (not a cache directory of imgfetch's?)")
            return .cacheUnusable
        }
        switch command {
        case "ls": return try CacheListCommand.run(parsed, cache)
        case "info": return try info(parsed, cache)
        case "rm": return try remove(parsed, cache)
        case "clear":
            let n = cache.clear()
            if parsed[OptionKeys.json] { Console.line(removalSummary(entries: n, bytes: nil).text) }
            Console.errorLine("removed \(n) entr\(n == 1 ? "y" : "ies")")
            return .ok
        case "prune": return try CachePruneCommand.run(parsed, cache)
        case "verify": return verify(parsed, cache)
        case "stats": return try stats(parsed, cache)
        case "scan":
            // The background scan `get` starts: the candidate list, then the cache fitted to the limit.
            let sizeLimit = try Self.sizeLimit(parsed)
            // In the background of the commands that started it: the lowest CPU priority.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            DiskCache(directory: directory, sizeLimit: sizeLimit).scanCandidates()
            return .ok
        case "gallery": return try CacheGalleryCommand.run(parsed, cache)
        case "sheet": return try CacheSheetCommand.run(parsed, cache)
        default: throw UsageError("missing cache command (ls, info, rm, clear, prune, verify, stats, scan, path, gallery, sheet, push, pull)", commandPath: ["cache"])
        }
    }

    /// `cache stats`' and `cache scan`'s `--cache-size-limit`, else IMGFETCH_CACHE_SIZE_LIMIT, else 1G; nil: none (0).
    static func sizeLimit(_ parsed: ParsedCommand) throws(UsageError) -> Int64? {
        var limit = try parsed[OptionKeys.cacheSizeLimit]
        if limit == nil { limit = try RequestOptions.fromEnvironment("IMGFETCH_CACHE_SIZE_LIMIT", Console.environment, ValueParsers.byteSize) }
        return limit.map { $0 == 0 ? nil : $0 } ?? (1 << 30)
    }

    /// Whether the command removes files: `clear`, `rm`, `prune`, `verify --repair` (`scan` evicts as
    /// a store does, from any cache a store may write to).
    static func removes(_ parsed: ParsedCommand) -> Bool {
        switch parsed.path.dropFirst().first {
        case "clear", "rm", "prune": true
        case "verify": parsed[OptionKeys.repair]
        default: false
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
        if let p = e.placeholders {
            o.add("blurhash", p.blurhash)
            o.add("thumbhash", p.thumbhash)
            o.add("average_color", p.averageColorHex)
        }
        o.add("kept", e.kept.rawValue)
        return o
    }

    /// `cache info`'s freshness decision: `"freshness": {fresh, reason, current_age, lifetime, status, headers}`.
    static func freshnessRecord(_ d: FreshnessDecision) -> JSONObject {
        var f = JSONObject()
        f.add("fresh", d.fresh)
        f.add("reason", d.reason)
        f.add("current_age", d.currentAge.map { ($0 * 10).rounded(.down) / 10 })
        f.add("lifetime", d.lifetime)
        f.add("status", d.status)
        f.add("headers", strings: d.headers.all.map { $0.name + ": " + $0.value })
        return f
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
            Console.errorLine("\(TerminalText.escaped(Source.abbreviated(text))): not in the cache")
            return .failed
        }
        for e in entries {
            let now = FileSystem.now()
            let decision = e.freshnessDecision(at: now)
            if parsed[OptionKeys.json] {
                var o = record(e, cache)
                o.add("freshness", object: freshnessRecord(decision))
                Console.line(o.text)
            } else {
                let rows = [["key", e.key], ["source", e.source], ["variant", e.variant],
                            ["path", cache.dataPath(e.key, format: e.format)], ["size", "\(e.bytes) bytes"],
                            ["dimensions", "\(e.width)x\(e.height)"], ["format", e.format],
                            ["created", Formatting.timestamp(e.created)],
                            ["expires", e.expires.map(Formatting.timestamp).map { $0 + " (\(Formatting.expiry(e, now: now)))" } ?? "never"],
                            ["last access", Formatting.timestamp(e.lastAccess)], ["etag", e.etag ?? "-"],
                            ["last-modified", e.lastModified ?? "-"], ["checksum", e.checksum],
                            ["freshness", decision.reason]]
                    + (e.placeholders.map { [["blurhash", $0.blurhash], ["thumbhash", $0.thumbhash], ["average color", $0.averageColorHex]] } ?? [])
                    + (decision.currentAge.map { [["current age", "\(Int($0)) s"]] } ?? [])
                    + (decision.lifetime.map { [["lifetime", "\(Int(min($0, 2_147_483_648))) s"]] } ?? [])
                    + (decision.status.map { [["http status", "\($0)"]] } ?? [])
                    + decision.headers.all.map { ["stored", $0.name + ": " + $0.value] }
                Console.out(Formatting.table(rows.map { [$0[0] + ":", TerminalText.escaped($0[1])] }) + (entries.count > 1 ? "\n" : ""))
            }
        }
        return .ok
    }

    static func remove(_ parsed: ParsedCommand, _ cache: DiskCache) throws(UsageError) -> ExitCode {
        let filter = try CacheEntryFilter(parsed)
        let arguments = parsed.positionalValues("SOURCE|KEY")
        let json = parsed[OptionKeys.json]
        if arguments.isEmpty {
            guard !filter.isEmpty else {
                throw parsed.error("missing SOURCE|KEY: name what to remove (sources, keys, - for standard input), or filter (--older-than 30d, ...)")
            }
            // Filters alone: every entry they match (only those are held, not the whole listing).
            var matched: [CacheEntry] = []
            cache.forEachEntry { e in
                if filter.matches(e) { matched.append(e) }
                return true
            }
            var removed = CacheRemoval()
            for e in matched where cache.remove(e) {
                removed.add(CacheRemoval(count: 1, bytes: e.bytes))
                if json { Console.line(removalRecord(e, cache).text) }
            }
            if json { Console.line(removalSummary(entries: removed.count, bytes: removed.bytes).text) }
            Console.errorLine("removed \(removed.count) entr\(removed.count == 1 ? "y" : "ies") (\(Formatting.size(removed.bytes))): \(filter.description)")
            return .ok
        }
        // Every argument is resolved before anything is removed: an ambiguous one removes nothing.
        var resolved: [(text: String, entries: [CacheEntry])] = []
        for text in try references(arguments) {
            switch try CacheReference.resolve(text, cache, command: "rm") {
            case .entries(let entries): resolved.append((text, entries))
            case .ambiguous(let candidates):
                CacheReference.reportAmbiguous(text, candidates)
                return .usage
            }
        }
        var code = ExitCode.ok
        var total = CacheRemoval()
        for (text, entries) in resolved {
            if entries.isEmpty {
                Console.errorLine("\(TerminalText.escaped(Source.abbreviated(text))): not in the cache")
                code = .failed
                continue
            }
            // With filters, only the entries of the argument that match them.
            let chosen = entries.filter(filter.matches)
            for e in chosen where cache.remove(e) {
                total.add(CacheRemoval(count: 1, bytes: e.bytes))
                if json { Console.line(removalRecord(e, cache).text) }
            }
            Console.errorLine("removed \(chosen.count) entr\(chosen.count == 1 ? "y" : "ies") of \(TerminalText.escaped(entries[0].source))"
                + (filter.isEmpty ? "" : " (\(filter.description))"))
        }
        if json { Console.line(removalSummary(entries: total.count, bytes: total.bytes).text) }
        return code
    }

    /// `cache rm --json`'s record of an entry removed: the `cache ls` record plus `"removed": true`.
    static func removalRecord(_ e: CacheEntry, _ cache: DiskCache) -> JSONObject {
        var o = record(e, cache)
        o.add("removed", true)
        return o
    }

    /// The summary object `cache rm --json` and `cache clear --json` end with.
    static func removalSummary(entries: Int, bytes: Int64?) -> JSONObject {
        var o = JSONObject()
        o.add("summary", true)
        o.add("entries", entries)
        if let bytes { o.add("bytes", bytes) }
        return o
    }

    /// The arguments of `cache rm`, `-` replaced by the lines of standard input (as `prefetch -`
    /// reads its list): one source, key or key prefix a line; blank lines and `#` comments skipped.
    static func references(_ arguments: [String]) throws(UsageError) -> [String] {
        var out: [String] = []
        for argument in arguments {
            guard argument == "-" else { out.append(argument); continue }
            var number = 0
            while let line = readLine(strippingNewline: true) {
                number += 1
                guard line.utf8.count <= maxReferenceBytes else {
                    throw UsageError("standard input, line \(number): longer than \(maxReferenceBytes) bytes", commandPath: ["cache", "rm"])
                }
                let text = String(line.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" }).reversed())
                if text.isEmpty || text.hasPrefix("#") { continue }
                out.append(text)
            }
        }
        return out
    }

    /// The longest line `cache rm -` takes (a source with a long query, a `data:` URL).
    static let maxReferenceBytes = 1 << 20

    static func verify(_ parsed: ParsedCommand, _ cache: DiskCache) -> ExitCode {
        let processor = VipsProcessor()
        let repair = parsed[OptionKeys.repair], json = parsed[OptionKeys.json]
        let (checked, problems) = cache.verify(repair: repair, decodes: { processor.decodeFailure($0) })
        for p in problems {
            if json {
                var o = JSONObject()
                o.add("key", p.key)
                o.add("source", p.source.isEmpty ? nil : p.source)
                o.add("problem", p.reason)
                o.add("repaired", repair)
                Console.line(o.text)
            } else {
                Console.line("\(repair ? "removed" : "bad") \(p.key.prefix(12)) \(p.source.isEmpty ? "-" : TerminalText.escaped(p.source)): \(TerminalText.escaped(p.reason))")
            }
        }
        if json {
            var o = JSONObject()
            o.add("summary", true)
            o.add("checked", checked)
            o.add("problems", problems.count)
            o.add("repaired", repair ? problems.count : 0)
            Console.line(o.text)
        }
        Console.err("imgfetch: checked \(checked) entr\(checked == 1 ? "y" : "ies"), \(problems.count) problem\(problems.count == 1 ? "" : "s")\(repair && !problems.isEmpty ? " repaired" : "")\n")
        return problems.isEmpty || repair ? .ok : .failed
    }

    static func stats(_ parsed: ParsedCommand, _ cache: DiskCache) throws(UsageError) -> ExitCode {
        let s = cache.statistics()
        let totals = cache.evictionTotals()
        let sizeLimit = try Self.sizeLimit(parsed)
        let down = HostDownMarks(cacheDirectory: cache.directory).all()
        if parsed[OptionKeys.json] {
            var o = JSONObject()
            o.add("directory", cache.directory)
            o.add("entries", s.entries)
            o.add("bytes", s.bytes)
            o.add("originals", s.originals)
            o.add("original_bytes", s.originalBytes)
            o.add("variants", s.variants)
            o.add("variant_bytes", s.variantBytes)
            o.add("byproduct_originals", s.byproducts)
            o.add("byproduct_bytes", s.byproductBytes)
            o.add("limit", sizeLimit)
            o.add("evictions", totals.evictions)
            o.add("evicted_bytes", totals.evictedBytes)
            o.add("expired", s.expired)
            o.add("oldest", s.oldest.map(Formatting.timestamp))
            o.add("newest", s.newest.map(Formatting.timestamp))
            o.add("hosts_down", objects: down.map { mark in
                var m = JSONObject()
                m.add("origin", mark.origin)
                m.add("since", Formatting.timestamp(mark.since))
                m.add("until", Formatting.timestamp(mark.until))
                m.add("reason", mark.reason)
                return m
            })
            Console.line(o.text)
        } else {
            let originals: String = "\(s.originals) (\(Formatting.size(s.originalBytes))), "
                + "\(s.byproducts) of them kept as by-products (\(Formatting.size(s.byproductBytes))): evicted first"
            let limitText: String = sizeLimit.map { "\($0) (\(Formatting.size($0)))" } ?? "none"
            let evicted: String = "\(totals.evictions) entr\(totals.evictions == 1 ? "y" : "ies") "
                + "(\(Formatting.size(totals.evictedBytes))) since the cache was made"
            var rows: [[String]] = [["directory:", TerminalText.escaped(cache.directory)], ["entries:", "\(s.entries) (\(s.expired) expired)"]]
            rows.append(["bytes:", "\(s.bytes) (\(Formatting.size(s.bytes)))"])
            rows.append(["originals:", originals])
            rows.append(["variants:", "\(s.variants) (\(Formatting.size(s.variantBytes)))"])
            rows.append(["limit:", limitText])
            rows.append(["evicted:", evicted])
            rows.append(["oldest:", s.oldest.map(Formatting.timestamp) ?? "-"])
            rows.append(["newest:", s.newest.map(Formatting.timestamp) ?? "-"])
            rows.append(["hosts down:", down.isEmpty ? "none" : "\(down.count)"])
            for mark in down {
                rows.append(["", TerminalText.escaped("\(mark.origin) until \(Formatting.timestamp(mark.until)): \(mark.reason)")])
            }
            Console.out(Formatting.table(rows))
        }
        return .ok
    }
}
