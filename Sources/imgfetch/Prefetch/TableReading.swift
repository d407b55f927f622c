import ImageFetch

/// What a tabular list's row carries into its records: `--keep-columns`' cells (nil: the row has
/// none) and the `--key-column` value.
struct RowCells: Sendable {
    var columns: [(name: String, value: String?)] = []
    var key: String?
}

/// One row of a tabular list, read.
enum TableRow {
    /// CSV and TSV's first row: the column names.
    case header
    /// A blank row.
    case skip
    case item(ListItem, RowCells)
    /// This row is reported and skipped (the message, without the list's name and the row).
    case malformed(String)
    /// The header lacks a column asked for: no row can be read (the message).
    case unusable(String)
}

/// Reads the rows of a CSV, TSV or JSONL list in order: the header first (CSV, TSV), then each
/// row's URL, kept cells and key by column name.
struct TableReading: Sendable {
    let settings: TableSettings
    /// The column names, once the header is read (CSV, TSV).
    private var columns: [String]?

    init(_ settings: TableSettings) { self.settings = settings }

    mutating func read(_ row: ListLine) -> TableRow {
        let text = String(decoding: row.bytes, as: UTF8.self)
        if row.isTooLong {
            return .malformed("row longer than \(ListLine.maxLength / 1024) KiB, skipped; it starts with \(ListParser.quoted(ListParser.cutBeforeAuthority(text), limit: 40))")
        }
        if row.bytes.contains(0) { return .malformed("row holds a NUL byte: \(ListParser.quoted(text, limit: 40))") }
        if row.bytes.allSatisfy({ $0 == 32 || $0 == 9 }) && columns != nil { return .skip }
        let cells: Result<[(name: String, value: String?)], TableRowError>
        switch settings.format {
        case .jsonl:
            if row.bytes.isEmpty { return .skip }
            cells = JSONLineObject.parse(row.bytes)
        case .csv, .tsv, .lines:
            let fields = settings.format == .tsv ? .success(TableFields.tsv(row.bytes)) : TableFields.csv(row.bytes)
            guard let columns else { return readHeader(fields) }
            cells = fields.flatMap { (values: [String]) -> Result<[(name: String, value: String?)], TableRowError> in
                guard values.count <= columns.count else {
                    return .failure(TableRowError("the row has \(values.count) fields, the header \(columns.count)"))
                }
                return .success(values.indices.map { (name: columns[$0], value: values[$0]) })
            }
        }
        switch cells {
        case .failure(let error): return .malformed(error.message)
        case .success(let cells): return item(cells, row: row.number)
        }
    }

    private func value(_ cells: [(name: String, value: String?)], _ name: String) -> String?? {
        guard let cell = cells.first(where: { $0.name == name }) else { return nil }
        return .some(cell.value)
    }

    private func item(_ cells: [(name: String, value: String?)], row: Int) -> TableRow {
        let column = settings.urlColumn
        guard let found = value(cells, column) else { return .malformed("no \(ListParser.quoted(column)) column in the row") }
        guard let url = found?.trimmingSpaces, !url.isEmpty else { return .malformed("an empty \(ListParser.quoted(column)) cell") }
        let source: Source
        do { source = try Source(parsing: url) } catch {
            if case .invalidSource(let text) = error { return .malformed(FetchError.invalidSource(ListParser.quoted(text, marks: false)).message) }
            return .malformed(error.message)
        }
        var kept = RowCells()
        if let keyColumn = settings.keyColumn {
            guard let key = value(cells, keyColumn), let key else { return .malformed("no \(ListParser.quoted(keyColumn)) (--key-column) in the row") }
            if let problem = TableSettings.keyProblem(key) {
                return .malformed("--key-column \(ListParser.quoted(keyColumn)) value \(ListParser.quoted(key, limit: 40)) \(problem)")
            }
            kept.key = key
        }
        kept.columns = settings.keepColumns.map { name in (name: name, value: value(cells, name) ?? nil) }
        return .item(ListItem(line: row, source: source), kept)
    }

    private mutating func readHeader(_ fields: Result<[String], TableRowError>) -> TableRow {
        let names: [String]
        switch fields {
        case .failure(let error): return .unusable("its header row: \(error.message)")
        case .success(let found): names = found.map(\.trimmingSpaces)
        }
        var wanted = [settings.urlColumn] + settings.keepColumns
        if let key = settings.keyColumn { wanted.append(key) }
        for name in wanted where !names.contains(name) {
            let listed = names.prefix(20).map { ListParser.quoted($0, limit: 40) }.joined(separator: ", ")
            return .unusable("no column \(ListParser.quoted(name)) in its header (its columns: \(listed))")
        }
        columns = names
        return .header
    }
}

private extension String {
    /// Without leading and trailing blanks (spaces and tabs).
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(scalars[first...last])
    }
}
