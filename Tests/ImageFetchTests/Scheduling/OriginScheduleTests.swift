import XCTest
@testable import ImageFetch

/// `OriginSchedule`, the one place that decides when a request to an origin may start, on a clock
/// the test moves.
final class OriginScheduleTests: XCTestCase {
    final class Clock: Sendable {
        let now = Lock(100.0)
        func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
    }

    private func schedule() -> (OriginSchedule, Clock) {
        let clock = Clock()
        return (OriginSchedule(monotonic: { clock.now.withLock { $0 } }), clock)
    }

    func testAHoldDelaysItsOriginOnlyAndALaterOneExtendsItNeverSums() {
        let (schedule, clock) = schedule()
        schedule.hold("http://a:80", for: 2)
        XCTAssertEqual(schedule.delay(before: "http://a:80"), 2)
        XCTAssertEqual(schedule.delay(before: "http://b:80"), 0, "other origins go on")
        clock.advance(1)
        schedule.hold("http://a:80", for: 0.5)   // ends earlier: the hold stays
        XCTAssertEqual(schedule.delay(before: "http://a:80"), 1)
        schedule.hold("http://a:80", for: 3)
        XCTAssertEqual(schedule.delay(before: "http://a:80"), 3, "the later end, not the sum")
        clock.advance(3)
        XCTAssertEqual(schedule.delay(before: "http://a:80"), 0)
        for bad in [-1.0, .infinity, .nan] { schedule.hold("http://a:80", for: bad) }
        XCTAssertEqual(schedule.delay(before: "http://a:80"), 0)
    }

    /// robots.txt's Crawl-delay: starts of one origin at least the interval apart (at most 60 s);
    /// asking (`delay`) reserves nothing, starting (`delayStarting` at 0) does.
    func testAMinimumIntervalSpacesTheStartsOfItsOriginOnly() {
        let (schedule, clock) = schedule()
        schedule.setMinimumInterval("http://a:80", seconds: 2)
        XCTAssertEqual(schedule.delayStarting("http://a:80"), 0, "the first starts at once")
        XCTAssertEqual(schedule.delay(before: "http://a:80"), 2)
        XCTAssertEqual(schedule.delayStarting("http://a:80"), 2, "the next waits the interval")
        XCTAssertEqual(schedule.delayStarting("http://b:80"), 0, "other origins go on")
        clock.advance(1.5)
        XCTAssertEqual(schedule.delayStarting("http://a:80"), 0.5)
        clock.advance(0.5)
        XCTAssertEqual(schedule.delayStarting("http://a:80"), 0)
        XCTAssertEqual(schedule.delayStarting("http://a:80"), 2)
        schedule.setMinimumInterval("http://c:80", seconds: 3600)
        XCTAssertEqual(schedule.delayStarting("http://c:80"), 0)
        XCTAssertEqual(schedule.delay(before: "http://c:80"), OriginSchedule.maxInterval, "bounded")
        for bad in [-1.0, .infinity, .nan, 0] { schedule.setMinimumInterval("http://a:80", seconds: bad) }
        XCTAssertEqual(schedule.delayStarting("http://a:80"), 0, "no interval")
    }

    /// From the 429/503 until the retrieval decides (or `decisionLimit`): held; a decision to
    /// retry holds for its wait, one not to retry lets requests start at once.
    func testAnAnswerHoldsItsOriginUntilTheRetrievalDecides() {
        let (schedule, clock) = schedule()
        schedule.answered("http://a:80", status: 200)
        XCTAssertEqual(schedule.delay(before: "http://a:80"), 0)
        schedule.answered("http://a:80", status: 429)
        // Held, but asked again within 0.1 s: the decision may end the hold or set a shorter one.
        XCTAssertEqual(schedule.delay(before: "http://a:80"), 0.05)
        clock.advance(1)
        XCTAssertEqual(schedule.delay(before: "http://a:80"), 0.05, "still undecided")
        schedule.hold("http://a:80", for: 2)
        XCTAssertEqual(schedule.delay(before: "http://a:80"), 2, "the decided wait replaces the provisional hold")

        schedule.answered("http://b:80", status: 503)
        XCTAssertGreaterThan(schedule.delay(before: "http://b:80"), 0)
        schedule.release("http://b:80")
        XCTAssertEqual(schedule.delay(before: "http://b:80"), 0, "not retried: nothing held")

        schedule.answered("http://c:80", status: 503)
        schedule.hold("http://d:80", for: 0.01)
        schedule.answered("http://d:80", status: 503)
        XCTAssertEqual(schedule.delay(before: "http://d:80"), 0.05, "undecided outlasts a shorter hold")
        clock.advance(OriginSchedule.decisionLimit)
        XCTAssertEqual(schedule.delay(before: "http://c:80"), 0, "a retrieval that never decides holds no longer")
    }
}
