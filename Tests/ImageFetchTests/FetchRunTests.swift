import Dispatch
import XCTest
@testable import ImageFetch

/// `FetchRun`: one stream of events for a batch (a result, a notice as it is posted, progress when
/// the reader is woken), ended by one `cancel()` from any thread, even before the batch starts.
final class FetchRunTests: TemporaryCacheTestCase {
    typealias Item = Prefetcher.Item<Int>

    /// A batch whose items never end (a list on a pipe that stays open): `first` items without a
    /// request (handed back at once), then nothing.
    func endless(_ first: Int) -> AsyncStream<Item> {
        AsyncStream { continuation in
            for tag in 0..<first { continuation.yield(Item(tag: tag, request: nil)) }
        }
    }

    /// A run on an engine of its own: `cancel()` closes its engine for good, and the process's shared
    /// engine is every other in-process test's (the test targets share one process).
    func makeRun() throws -> FetchRun {
        try FetchRun(FetchSettings(cache: makeCache(sizeLimit: nil)), engine: CurlEngine())
    }

    func describe(_ event: FetchEvent<Int>) -> String {
        switch event {
        case .result(let completion): return "result \(completion.tag)"
        case .notice(let notice): return "notice \(notice.source)"
        case .uploadWarning(let warning): return "warning \(warning)"
        case .progress: return "progress"
        }
    }

    func testACancelFromAnotherThreadEndsTheEventsOfABatchThatNeverEnds() async throws {
        let run = try makeRun()
        var seen: [String] = []
        for await event in run.events(for: endless(2)) {
            seen.append(describe(event))
            if seen.count == 2 { DispatchQueue.global().async { run.cancel() } }
        }
        XCTAssertEqual(seen, ["result 0", "result 1"])
    }

    func testACancelBeforeTheBatchStopsItAtOnce() async throws {
        let run = try makeRun()
        run.cancel()
        var seen: [String] = []
        for await event in run.events(for: endless(0)) { seen.append(describe(event)) }
        XCTAssertEqual(seen, [])
    }

    func testANoticeIsAnEventAsItIsPostedThenProgress() async throws {
        let run = try makeRun()
        let notice = RetryNotice(source: "https://example.com/a.jpg", cause: .httpStatus(503, retryAfter: nil), wait: 1, retriesLeft: 2)
        var seen: [String] = []
        for await event in run.events(for: endless(1)) {
            seen.append(describe(event))
            if seen == ["result 0"] { await run.pipeline.activity.post(notice) }
            if seen.count == 3 { run.wake() }
            if seen.count == 4 { run.cancel() }
        }
        XCTAssertEqual(seen, ["result 0", "notice https://example.com/a.jpg", "progress", "progress"],
                       "the notice wakes the reader (no timer), a wake is progress")
        let left = await run.finish(uploadTimeout: 0)
        XCTAssertEqual(left.notices, [], "told once")
        XCTAssertNil(left.uploads, "no tier")
    }
}
