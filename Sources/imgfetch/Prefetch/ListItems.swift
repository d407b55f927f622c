import ImageFetch

/// A list line on its way through the prefetcher: its position among the list's items (every line
/// that is not blank or a comment), its number, and what it is.
struct LineTag: Sendable {
    enum Kind: Sendable {
        /// A source to fetch, with its own `name=` template if it has one.
        case request(template: OutputTemplate?)
        /// A line reported and skipped (its message).
        case malformed(String)
        /// Another shard's line.
        case skipped
        /// A table's header row (kept for `--save-remaining` from standard input).
        case header
    }
    var position: Int
    var line: Int
    var kind: Kind
    /// The line as written (without its line end), kept for `--save-failed` only.
    var text: [UInt8]? = nil
    /// A tabular list's row: its kept cells and key, for its record.
    var cells: RowCells? = nil
}

/// The lines of a prefetch list as the prefetcher's items, read as slots free up (on the
/// prefetcher's task): each item line becomes a request or an item without one (malformed, other
/// shard), so that the run learns of every line in the one sequence of results.
struct ListItems: AsyncSequence, Sendable {
    typealias Element = Prefetcher.Item<LineTag>
    let reader: ListReader
    let settings: RequestOptions
    let shard: Shard?
    /// `--output-dir` is given (a line's `name=` needs it).
    let takesNames: Bool
    /// `--save-failed` is given: each tag keeps its line's text.
    var keepsText = false
    /// A tabular list (CSV, TSV, JSONL): rows by column name.
    var table: TableSettings? = nil

    /// What an item is, and its request when it has one.
    typealias Found = (tag: LineTag.Kind, request: ImageRequest?)

    struct AsyncIterator: AsyncIteratorProtocol {
        let items: ListItems
        var batch: [ListLine] = []
        var index = 0
        var position = 0
        var table: TableReading?

        mutating func next() async -> Prefetcher.Item<LineTag>? {
            while let line = await nextLine() {
                var cells: RowCells?
                let found: Found?
                if table != nil {
                    guard let row = row(line) else { return nil }
                    found = row.kind
                    cells = row.cells
                } else {
                    found = item(line)
                }
                guard let kind = found else { continue }
                defer { position += 1 }
                var tag = LineTag(position: position, line: line.number, kind: kind.tag, text: items.keepsText ? line.bytes : nil)
                tag.cells = cells
                return Prefetcher.Item(tag: tag, request: kind.request)
            }
            return nil
        }

        /// What a table's row is (kind nil: a blank row); nil when the header lacks a column asked
        /// for (the list ends there, as a read failure).
        private mutating func row(_ line: ListLine) -> (kind: Found?, cells: RowCells?)? {
            switch table?.read(line) {
            case .header?: return ((.header, nil), nil)
            case .skip?, nil: return (nil, nil)
            case .malformed(let message)?: return ((.malformed(message), nil), nil)
            case .unusable(let message)?:
                items.reader.stop(message)
                return nil
            case .item(let item, let cells)?:
                return (request(item), cells)
            }
        }

        /// What a line is; nil for a blank line or a comment.
        private func item(_ line: ListLine) -> Found? {
            switch ListParser.parse(line) {
            case .skip:
                return nil
            case .malformed(_, let message):
                return (.malformed(message), nil)
            case .item(let item):
                return request(item)
            }
        }

        /// A source line's request (or why it has none).
        private func request(_ item: ListItem) -> Found {
            if let shard = items.shard, !shard.contains(item.source) { return (.skipped, nil) }
            var template: OutputTemplate?
            if let name = item.name {
                guard items.takesNames else { return (.malformed("name= needs --output-dir"), nil) }
                do { template = try OutputTemplate(name) } catch { return (.malformed("name=: \(error.message)"), nil) }
            }
            let settings = items.settings
            let request = settings.request(for: item.source, lowDataSource: item.lowDataSource, alternatives: item.alternatives,
                                           network: item.network(over: settings.network))
            return (.request(template: template), request)
        }

        /// The next line of the list, read as it arrives; nil at its end (or when the task is cancelled).
        private mutating func nextLine() async -> ListLine? {
            if index < batch.count {
                defer { index += 1 }
                return batch[index]
            }
            batch = await items.reader.nextBatch()
            index = 1
            return batch.first
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(items: self, table: table.map { TableReading($0) }) }
}
