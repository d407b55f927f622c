import ArgumentKit
import ImageFetch

/// `imgfetch cache prune`: the expired entries (or, given filters, the entries they all match),
/// then with `--max-size` the least recently used beyond it, and the temporary files interrupted
/// writes left (over an hour old). `--dry-run` says what would go and removes nothing; `--json`
/// prints one record per entry (the `cache ls` record plus `reason` and `removed`), then a summary.
enum CachePruneCommand {
    static func run(_ parsed: ParsedCommand, _ cache: DiskCache) throws(UsageError) -> ExitCode {
        let maxSize = try parsed[OptionKeys.maxSize]
        let filter = try CacheEntryFilter(parsed)
        let dryRun = parsed[OptionKeys.dryRun], json = parsed[OptionKeys.json]
        // No filter: the expired entries, unless only --max-size was given (as before filters).
        let selects: ((CacheEntry) -> Bool)? = !filter.isEmpty ? filter.matches
            : maxSize == nil ? { [now = filter.now] in $0.isExpired(at: now) } : nil
        let selected = filter.isEmpty ? "expired entries" : filter.description
        var checked: [String] = selects == nil ? [] : [selected]
        if let maxSize { checked.append("least recently used entries beyond \(Formatting.size(maxSize))") }
        checked.append("broken files")
        let what = checked.count == 2 ? checked.joined(separator: " and ")
            : checked.dropLast().joined(separator: ", ") + " and " + checked[checked.count - 1]

        let output = StreamingOutput()
        // Plain text lists nothing: --max-size is then the exact eviction alone (as fast as before).
        let each: ((CacheEntry, DiskCache.PruneReason) -> Void)? = !json && !dryRun ? nil : { entry, reason in
            let why = reason == .sizeLimit ? "size_limit" : filter.isEmpty ? "expired" : "matched"
            if json {
                var o = CacheCommands.record(entry, cache)
                o.add("reason", why)
                o.add("removed", !dryRun)
                output.write(o.text + "\n")
            } else if dryRun {
                // KEY SIZE REASON VARIANT SOURCE, the first three padded as cache ls pads its columns.
                let cells = [String(entry.key.prefix(12)), Formatting.size(entry.bytes), why]
                    .enumerated().map { $1 + String(repeating: " ", count: max(0, [12, 7, 10][$0] - $1.count)) }
                output.write((cells + [entry.variant, entry.source].map(TerminalText.escaped)).joined(separator: "  ") + "\n")
            }
        }
        let outcome = cache.prune(selecting: selects, maxSize: maxSize, dryRun: dryRun, each: each)
        let n = outcome.removed.count
        let entries = "\(n) entr\(n == 1 ? "y" : "ies") (\(Formatting.size(outcome.removed.bytes)))"
        let broken = "\(outcome.brokenFiles) broken file\(outcome.brokenFiles == 1 ? "" : "s") (\(Formatting.size(outcome.brokenBytes)))"
        let checkedText = outcome.checked.map { " (\($0) entr\($0 == 1 ? "y" : "ies") checked)" } ?? ""
        if json {
            var o = JSONObject()
            o.add("summary", true)
            o.add("dry_run", dryRun)
            o.add("checked", outcome.checked ?? 0)
            o.add("entries", n)
            o.add("bytes", outcome.removed.bytes)
            o.add("broken_files", outcome.brokenFiles)
            o.add("broken_bytes", outcome.brokenBytes)
            o.add("criteria", what)
            output.write(o.text + "\n")
        }
        output.flush()
        let nothing = n == 0 && outcome.brokenFiles == 0
        let sentence = nothing ? "\(what): none\(checkedText)"
            : "\(dryRun ? "would remove" : "removed") \(entries)\(outcome.brokenFiles > 0 ? " and " + broken : ""): \(what)\(checkedText)"
        // Standard output holds only the records (or the rows) a script reads; the sentence goes to
        // standard error in every mode, as the other cache commands' reports do.
        Console.err("imgfetch: \(sentence)\(dryRun ? "; nothing removed" : "")\n")
        return .ok
    }
}
