import ArgumentKit
import ImageFetch

/// `prefetch`'s tabular lists (see TableSettings.swift and man imgfetch, PREFETCH LISTS).
extension OptionKeys {
    static let inputFormat: TextKey = .value("input-format", valueName: "lines|csv|tsv|jsonl", help: "How the list is written: list lines, or a table with a URL column (CSV as RFC 4180 with a header row, TSV with a header row, JSONL one object a line). A malformed row is reported with its row number and skipped.", defaultDescription: "from the extension .csv, .tsv, .jsonl, else lines", completion: .choices(ListFormat.allCases.map(\.rawValue)))
    static let urlColumn: TextKey = .value("url-column", valueName: "NAME", help: "A table's column holding each row's source.", defaultDescription: "url")
    static let keepColumns: TextKey = .value("keep-columns", valueName: "A,B,...", help: "A table's columns copied into each row's record, as \"columns\": {\"A\": \"...\"} (null for a cell the row lacks).")
    static let keyColumn: TextKey = .value("key-column", valueName: "NAME", help: "A table's column whose value is each row's key (\"row_key\" in its record): A-Z, a-z, 0-9, - and _, at most 64 bytes; a row without a valid one is malformed.")
}

extension Specs {
    /// `prefetch`'s tabular lists (see TableSettings.swift and man imgfetch, PREFETCH LISTS).
    static let tables = OptionSpec.list(
        OptionKeys.inputFormat, OptionKeys.urlColumn, OptionKeys.keepColumns, OptionKeys.keyColumn)
}
