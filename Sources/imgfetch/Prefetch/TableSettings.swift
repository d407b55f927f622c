import ArgumentKit

/// How a prefetch list is written: `lines` (the list-line syntax), or a table with a URL column.
enum ListFormat: String, Sendable, CaseIterable {
    case lines, csv, tsv, jsonl

    /// A table has named columns (a header row for CSV and TSV, an object's names for JSONL).
    var isTable: Bool { self != .lines }

    /// From a list file's name: `.csv`, `.tsv`, `.jsonl` (any case), else `lines`.
    static func from(path: String?) -> ListFormat {
        guard let path, let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return .lines }
        return ListFormat(rawValue: path[path.index(after: dot)...].lowercased()).flatMap { $0.isTable ? $0 : nil } ?? .lines
    }
}

/// `--input-format`, `--url-column`, `--keep-columns`, `--key-column`: how a tabular list's rows
/// become requests, and which of their cells go into the records.
struct TableSettings: Sendable {
    var format: ListFormat
    var urlColumn = "url"
    var keepColumns: [String] = []
    var keyColumn: String?

    /// The longest `--key-column` value (it names files in a shard's tar).
    static let keyLimit = 64

    static func from(_ parsed: ParsedCommand, listPath: String?) throws(UsageError) -> TableSettings {
        var settings = TableSettings(format: .from(path: listPath))
        if let name = parsed[OptionKeys.inputFormat] {
            guard let format = ListFormat(rawValue: name) else {
                throw UsageError("invalid value '\(name)' for '--input-format': expected lines, csv, tsv or jsonl", commandPath: ["prefetch"])
            }
            settings.format = format
        }
        let url = parsed[OptionKeys.urlColumn], keep = parsed[OptionKeys.keepColumns], key = parsed[OptionKeys.keyColumn]
        if !settings.format.isTable, url != nil || keep != nil || key != nil {
            throw UsageError("--url-column, --keep-columns and --key-column need a table: --input-format csv, tsv or jsonl (or a list named .csv, .tsv, .jsonl)", commandPath: ["prefetch"])
        }
        if let url {
            guard !url.isEmpty else { throw UsageError("--url-column needs a column name", commandPath: ["prefetch"]) }
            settings.urlColumn = url
        }
        if let keep {
            let names = keep.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard !names.contains(where: \.isEmpty) else {
                throw UsageError("invalid value '\(keep)' for '--keep-columns': expected NAME,NAME,... (no empty name)", commandPath: ["prefetch"])
            }
            settings.keepColumns = names
        }
        if let key {
            guard !key.isEmpty else { throw UsageError("--key-column needs a column name", commandPath: ["prefetch"]) }
            settings.keyColumn = key
        }
        return settings
    }

    /// What `--shard-dir`'s digest adds (nothing for a plain list: its markers keep their digest).
    var digestLines: [String] {
        guard format.isTable else { return [] }
        var lines = ["input-format=" + format.rawValue, "url-column=" + urlColumn]
        lines.append("keep-columns=" + keepColumns.joined(separator: ","))
        lines.append("key-column=" + (keyColumn ?? ""))
        return lines
    }

    /// Why `value` cannot be a row's key, nil when it can: `[A-Za-z0-9_-]`, 1 to 64 bytes.
    static func keyProblem(_ value: String) -> String? {
        if value.isEmpty { return "is empty" }
        if value.utf8.count > keyLimit { return "is longer than \(keyLimit) bytes" }
        for byte in value.utf8 {
            let ok = (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 45 || byte == 95
            if !ok { return "holds a character other than A-Z, a-z, 0-9, - and _" }
        }
        return nil
    }
}
