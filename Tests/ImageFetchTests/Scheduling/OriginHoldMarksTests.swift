import XCTest
@testable import ImageFetch

/// `OriginHoldMarks`, the origins' holds shared through a cache directory, and two
/// `OriginSchedule`s (two processes) sharing them, on clocks the test moves.
final class OriginHoldMarksTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        super.setUp()
        directory = NSTemporaryDirectory() + "imgfetch-holds-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    /// Two processes' schedules (base 2 s, cap 60 s, no jitter) sharing one directory's marks, on
    /// one clock the test moves (wall time = 1,000,000 + the clock).
    private func twoProcesses() -> (OriginScheduleTests.Clock, OriginHoldMarks, OriginSchedule, OriginSchedule) {
        let clock = OriginScheduleTests.Clock()
        let marks = OriginHoldMarks(cacheDirectory: directory)
        func make() -> OriginSchedule {
            OriginSchedule(backoff: .init(base: 2, cap: 60), shared: marks, monotonic: { clock.now.withLock { $0 } },
                           wall: { 1_000_000 + clock.now.withLock { $0 } }, random: { 0 })
        }
        return (clock, marks, make(), make())
    }

    func testAStrikeInOneScheduleHoldsTheOriginInTheOtherWithItsStrikes() {
        let (clock, marks, a, b) = twoProcesses()
        XCTAssertEqual(b.delay(before: "http://o:80"), 0, "nothing held")
        XCTAssertEqual(a.struck("http://o:80"), 2)
        XCTAssertEqual(b.delay(before: "http://o:80"), 2, accuracy: 0.001, "the other process waits too")
        XCTAssertEqual(b.delay(before: "http://p:80"), 0, "other origins go on")
        clock.advance(2)
        XCTAssertEqual(b.delay(before: "http://o:80"), 0)
        XCTAssertEqual(b.struck("http://o:80"), 4, "the second strike in a row, counted across processes")
        XCTAssertEqual(a.delay(before: "http://o:80"), 4, accuracy: 0.001)
        clock.advance(4)
        a.cleared("http://o:80")
        XCTAssertEqual(marks.mark(of: "http://o:80", now: 1_000_000 + clock.now.withLock { $0 })?.strikes, 0, "a success ends the shared strikes")
        XCTAssertEqual(b.struck("http://o:80"), 2, "a success in the other process started the row again here too")
    }

    func testAfterA429sHoldTheProcessesTogetherStartOneTransferPerBase() {
        let (clock, _, a, b) = twoProcesses()
        XCTAssertEqual(a.delayStarting("http://o:80"), 0, "not paced before a throttle")
        XCTAssertEqual(a.delayStarting("http://o:80"), 0)
        a.struck("http://o:80")
        clock.advance(2)
        XCTAssertEqual(a.delayStarting("http://o:80"), 0, "a timeout's hold ended: no pacing")
        XCTAssertEqual(b.delayStarting("http://o:80"), 0)
        a.struck("http://o:80", throttled: true)
        clock.advance(4)
        XCTAssertEqual(a.delayStarting("http://o:80"), 0, "a 429's hold ended: one start")
        XCTAssertEqual(b.delayStarting("http://o:80"), 2, accuracy: 0.001, "the other process's next start waits the base")
        XCTAssertEqual(a.delayStarting("http://o:80"), 2, accuracy: 0.001, "and this one's")
        clock.advance(2)
        XCTAssertEqual(b.delayStarting("http://o:80"), 0)
        XCTAssertEqual(a.delayStarting("http://o:80"), 2, accuracy: 0.001, "the starts of both processes are paced together")
        clock.advance(OriginSchedule.paceWindow)
        XCTAssertEqual(a.delayStarting("http://o:80"), 0, "a minute after the hold, no more pacing")
        XCTAssertEqual(b.delayStarting("http://o:80"), 0)
        XCTAssertEqual(b.delayStarting("http://o:80"), 0)
    }

    func testHostileMarksAreIgnored() throws {
        let marks = OriginHoldMarks(cacheDirectory: directory)
        XCTAssertTrue(marks.write(.init(origin: "http://o:80", until: 2000, strikes: 3), now: 1000))
        XCTAssertEqual(marks.mark(of: "http://o:80", now: 1000), .init(origin: "http://o:80", until: 2000, strikes: 3))
        XCTAssertNil(marks.mark(of: "http://other:80", now: 1000))
        XCTAssertTrue(marks.write(.init(origin: "http://o:80", until: 1e12, strikes: 99), now: 1000))
        XCTAssertEqual(marks.mark(of: "http://o:80", now: 1000), .init(origin: "http://o:80", until: 1000 + OriginHoldMarks.maxTTL, strikes: 62),
                       "a hold ends at most an hour from now")
        let path = marks.path("http://o:80")
        try "imgfetch-origin-hold 1\nhttp://o:80\n2000\n1\n0\n0\n".write(toFile: marks.path("http://o:80"), atomically: false, encoding: .utf8)
        XCTAssertEqual(marks.mark(of: "http://o:80", now: 1000)?.strikes, 1, "the form the hostile ones below vary")
        for text in ["imgfetch-origin-hold 1\nhttp://other:80\n2000\n1\n0\n0\n", "imgfetch-origin-hold 1\nhttp://o:80\nnan\n1\n0\n0\n",
                     "imgfetch-origin-hold 1\nhttp://o:80\n2000\n-1\n0\n0\n", "imgfetch-origin-hold 1\nhttp://o:80\n9e9\n1\n0\n0\n",
                     "imgfetch-origin-hold 1\nhttp://o:80\n2000\n1\n9e9\n0\n", "imgfetch-origin-hold 1\nhttp://o:80\n2000\n1\n0\ninf\n",
                     "imgfetch-origin-hold 1\nhttp://o:80\n2000\n1\n", "imgfetch-origin-hold 1\nfile:///etc\n2000\n1\n0\n0\n",
                     String(repeating: "x", count: 10_000)] {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            XCTAssertNil(marks.mark(of: "http://o:80", now: 1000), text.prefix(60).description)
        }
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/etc/hostname")
        XCTAssertNil(marks.mark(of: "http://o:80", now: 1000), "a link is no mark")
    }

    func testAtMostMaxMarksAndExpiredOnesMakeRoom() {
        let marks = OriginHoldMarks(cacheDirectory: directory)
        for i in 0..<OriginHoldMarks.maxMarks { marks.write(.init(origin: "http://o\(i):80", until: i == 0 ? 900 : 2000, strikes: 1), now: 1000) }
        XCTAssertTrue(marks.write(.init(origin: "http://new:80", until: 2000, strikes: 1), now: 1000), "the expired mark made room")
        XCTAssertFalse(marks.write(.init(origin: "http://more:80", until: 2000, strikes: 1), now: 1000))
        XCTAssertEqual(FileManager.default.subpaths(atPath: marks.directory)?.count, OriginHoldMarks.maxMarks)
    }
}
