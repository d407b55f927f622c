import ArgumentKit

/// The options of the `cache` commands (their `--json`, `--cache-size-limit`, `--originals`,
/// `--remote-cache` and `--s3-endpoint` are get's keys, said otherwise: `helped`).
extension OptionKeys {
    static let sort: ValueKey<String> = .value("sort", valueName: "FIELD", help: "key (streams), or age (newest first), size (largest first), source or access (most recent first): these read every entry before printing the first.", defaultDescription: "key", completion: .choices(CacheListCommand.sortFields), parser: ValueParsers.oneOf(CacheListCommand.sortFields))
    static let maxSize: ValueKey<Int64> = .value("max-size", valueName: "SIZE", help: "Evict least recently used entries until the cache fits SIZE.", parser: ValueParsers.byteSize)
    static let dryRun: FlagKey = .flag("dry-run", help: "Print what would go (key, size, reason, variant, source), with sizes; remove nothing.")
    static let repair: FlagKey = .flag("repair", help: "Remove bad entries and orphaned files.")
    static let galleryOutput: TextKey = .value("output", short: "o", valueName: "DIR", help: "Where to write index.html, page-2.html, ... (created).", defaultDescription: "./imgfetch-gallery")
    static let copy: FlagKey = .flag("copy", help: "Copy the images into DIR/images instead of linking to the cache's files.")
    static let pageSize: ValueKey<Int> = .value("page-size", valueName: "N", help: "Entries per page (pages follow key order; filter and sort work within a page).", defaultDescription: "200", parser: ValueParsers.positiveInt)
    static let sheetOutput: TextKey = .value("output", short: "o", valueName: "FILE", help: "The sheet (.jpg, .png or .webp). Required.", required: true)
    static let columns: ValueKey<Int> = .value("columns", valueName: "N", help: "Pictures across (at most 100).", defaultDescription: "5", parser: ValueParsers.positiveInt)
    static let sheetSize: ValueKey<Int> = .value("size", valueName: "S", help: "Each picture's box, S x S pixels (at most 1024); never upscaled.", defaultDescription: "160", parser: ValueParsers.positiveInt)
    static let limit: ValueKey<Int> = .value("limit", valueName: "N", help: "At most N entries, newest first (at most 10000).", defaultDescription: "100", parser: ValueParsers.positiveInt)
}

/// The entry filters of `cache ls`, `cache rm` and `cache prune` (CacheEntryFilter).
extension OptionKeys {
    static let source: TextKey = .value("source", valueName: "TEXT", help: "Only entries whose source contains TEXT (byte for byte, case-sensitive).")
    static let originals: FlagKey = .flag("originals", help: "Only sources' originals (kept beside their variants, or asked for as they are).")
    static let variants: FlagKey = .flag("variants", help: "Only processed variants.")
    static let largerThan: ValueKey<Int64> = .value("larger-than", valueName: "SIZE", help: "Only entries whose image is more than SIZE bytes (K, M, G suffixes).", parser: ValueParsers.byteSize)
    static let smallerThan: ValueKey<Int64> = .value("smaller-than", valueName: "SIZE", help: "Only entries whose image is less than SIZE bytes (K, M, G suffixes).", parser: ValueParsers.byteSize)
    static let olderThan: ValueKey<Double> = .value("older-than", valueName: "DURATION", help: "Only entries stored more than DURATION ago (s, m, h, d): by the time the entry was stored (created in --json, AGE in the listing), not its last access.", parser: ValueParsers.duration)
    static let newerThan: ValueKey<Double> = .value("newer-than", valueName: "DURATION", help: "Only entries stored less than DURATION ago (s, m, h, d), by the same stored time.", parser: ValueParsers.duration)
    static let expired: FlagKey = .flag("expired", help: "Only entries past their expiry time.")
    static let fresh: FlagKey = .flag("fresh", help: "Only fresh entries: usable without asking the server (fresh in --json).")
    static let entryFormat: TextKey = .value("format", valueName: "F", help: "Only entries of format F: \(CacheEntryFilter.formatNames.joined(separator: ", ")) (jpg for jpeg).", completion: .choices(CacheEntryFilter.formatNames))
}
