import XCTest
@testable import ImageFetch

/// `StallWatchdog`, prefetch's `--stall-timeout`, on a clock and a progress count the test moves.
final class StallWatchdogTests: XCTestCase {
    final class World: Sendable {
        let now = Lock(100.0)
        let bytes = Lock<Int64>(0)
        let idle = Lock(false)
        let stops = Lock(0)
    }

    private func watchdog(_ world: World, timeout: Double = 10) -> StallWatchdog {
        StallWatchdog(timeout: timeout, progress: { world.bytes.withLock { $0 } }, idle: { world.idle.withLock { $0 } },
                      monotonic: { world.now.withLock { $0 } }, onStall: { world.stops.withLock { $0 += 1 } })
    }

    func testItStopsTheRunOnceAfterTimeoutSecondsWithoutAByteOrACompletedLine() {
        let world = World()
        let dog = watchdog(world)
        XCTAssertFalse(dog.check())
        world.now.withLock { $0 += 9 }
        XCTAssertFalse(dog.check(), "not yet")
        world.bytes.withLock { $0 += 1 }
        world.now.withLock { $0 += 9 }
        XCTAssertFalse(dog.check(), "a byte arrived: the count starts again")
        world.now.withLock { $0 += 9 }
        dog.completed()
        XCTAssertFalse(dog.check(), "a line completed: the count starts again")
        world.now.withLock { $0 += 10 }
        XCTAssertTrue(dog.check())
        XCTAssertTrue(dog.fired)
        world.now.withLock { $0 += 100 }
        XCTAssertFalse(dog.check(), "once")
        XCTAssertEqual(world.stops.withLock { $0 }, 1)
    }

    func testWaitingForTheListIsNotAStall() {
        let world = World()
        let dog = watchdog(world)
        world.idle.withLock { $0 = true }
        world.now.withLock { $0 += 50 }
        XCTAssertFalse(dog.check(), "the list's reader waits for input")
        world.idle.withLock { $0 = false }
        world.now.withLock { $0 += 9 }
        XCTAssertFalse(dog.check())
        world.now.withLock { $0 += 1 }
        XCTAssertTrue(dog.check())
    }

    /// Started, it checks on its own: a run that makes no progress is stopped without anyone asking.
    func testStartedItFiresOnItsOwn() async throws {
        let fired = expectation(description: "stopped")
        let dog = StallWatchdog(timeout: 0.2, progress: { 0 }, onStall: { fired.fulfill() })
        dog.start()
        await fulfillment(of: [fired], timeout: 30)
        dog.stop()
        XCTAssertTrue(dog.fired)
    }
}
