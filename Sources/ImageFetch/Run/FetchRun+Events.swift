/// One event of a run, in the order the reader should tell them: a finished item, a retry notice
/// (as the pipeline decides it), an upload's failure (a warning, never the image's error), or a
/// wake-up to redraw progress. A later kind (a watchdog's, a skipped line's) is a new case.
public enum FetchEvent<Tag: Sendable>: Sendable {
    case result(Prefetcher.Completion<Tag>)
    case notice(RetryNotice)
    case uploadWarning(String)
    case progress
}

extension FetchRun {
    /// The events of the batch `items`: their results as they finish (at most `Limits.retrievals`
    /// in flight, identical requests coalesced), with the notices, upload warnings and progress
    /// wake-ups between them. Read from one task; `cancel()` ends it early (the items in flight
    /// then finish as `cancelled`, still delivered). One batch per run.
    public func events<Items: AsyncSequence & Sendable, Tag: Sendable>(for items: Items) -> Events<Tag>
        where Items.Element == Prefetcher.Item<Tag> {
        let results = prefetcher.results(for: items)
        reader.attach(wake: { results.wake() }, stop: { results.cancel() })
        return Events(run: self, results: results)
    }

    /// The sequence `events(for:)` returns.
    public struct Events<Tag: Sendable>: AsyncSequence, Sendable {
        let run: FetchRun
        let results: Prefetcher.Results<Tag>

        public struct AsyncIterator: AsyncIteratorProtocol {
            let run: FetchRun
            let results: Prefetcher.Results<Tag>
            var waiting: [FetchEvent<Tag>] = []

            public mutating func next() async -> FetchEvent<Tag>? {
                while true {
                    if !waiting.isEmpty { return waiting.removeFirst() }
                    switch await results.receive() {
                    case .value(let completion): return .result(completion)
                    case .finished: return nil
                    case .woken: waiting = await run.told()
                    }
                }
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(run: run, results: results) }
    }

    /// What woke the reader: the notices and upload warnings waiting, then progress.
    func told<Tag>() async -> [FetchEvent<Tag>] {
        var told = await pipeline.activity.takeNotices().map { FetchEvent<Tag>.notice($0) }
        if let remote { told += await remote.uploader.takeWarnings().map { FetchEvent<Tag>.uploadWarning($0) } }
        return told + [.progress]
    }
}
