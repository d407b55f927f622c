import XCTest
@testable import ImageFetch

final class TaskCoalescerTests: XCTestCase {
    /// Counts starts, and holds every task until released.
    final class Gate: Sendable {
        let starts = Lock(0)
        let cancelled = Lock(0)
        let open = Lock(false)

        func run(_ value: Int) async -> Int {
            starts.withLock { $0 += 1 }
            while !open.withLock({ $0 }) {
                if Task.isCancelled {
                    cancelled.withLock { $0 += 1 }
                    return -1
                }
                try? await Task.sleep(nanoseconds: 2_000_000)
            }
            return value
        }
    }

    func testEqualKeysShareOneTaskAndDifferentKeysNever() async {
        let pool = TaskCoalescer<String, Int>()
        let gate = Gate()
        async let a = pool.value(for: "a", cancelled: -1) { await gate.run(1) }
        async let b = pool.value(for: "a", cancelled: -1) { await gate.run(2) }
        async let c = pool.value(for: "c", cancelled: -1) { await gate.run(3) }
        while gate.starts.withLock({ $0 }) < 2 { try? await Task.sleep(nanoseconds: 2_000_000) }
        try? await Task.sleep(nanoseconds: 20_000_000)
        gate.open.withLock { $0 = true }
        let (ra, rb, rc) = await (a, b, c)
        XCTAssertEqual(gate.starts.withLock { $0 }, 2, "one task for \"a\", one for \"c\"")
        XCTAssertEqual(ra.value, rb.value, "both waiters of \"a\" get the one value")
        XCTAssertEqual([ra.shared, rb.shared].filter { $0 }.count, 1, "one started it, the other joined")
        XCTAssertEqual(rc.value, 3)
        XCTAssertFalse(rc.shared)
        XCTAssertEqual(pool.count, 0, "nothing left in flight")
    }

    func testAWaiterThatLeavesDoesNotCancelTheOthers() async {
        let pool = TaskCoalescer<String, Int>()
        let gate = Gate()
        let first = Task { await pool.value(for: "k", cancelled: -1) { await gate.run(7) } }
        while gate.starts.withLock({ $0 }) < 1 { try? await Task.sleep(nanoseconds: 2_000_000) }
        let second = Task { await pool.value(for: "k", cancelled: -1) { await gate.run(8) } }
        try? await Task.sleep(nanoseconds: 20_000_000)
        first.cancel()
        let left = await first.value
        XCTAssertEqual(left.value, -1, "the waiter that left gets `cancelled` at once")
        gate.open.withLock { $0 = true }
        let stayed = await second.value
        XCTAssertEqual(stayed.value, 7, "the other waiter still gets the shared value")
        XCTAssertEqual(gate.cancelled.withLock { $0 }, 0, "the shared task was not cancelled")
    }

    func testTheLastWaiterLeavingCancelsTheTask() async {
        let pool = TaskCoalescer<String, Int>()
        let gate = Gate()
        let a = Task { await pool.value(for: "k", cancelled: -1) { await gate.run(1) } }
        while gate.starts.withLock({ $0 }) < 1 { try? await Task.sleep(nanoseconds: 2_000_000) }
        let b = Task { await pool.value(for: "k", cancelled: -1) { await gate.run(2) } }
        try? await Task.sleep(nanoseconds: 20_000_000)
        a.cancel()
        b.cancel()
        _ = await (a.value, b.value)
        for _ in 0..<500 where gate.cancelled.withLock({ $0 }) == 0 { try? await Task.sleep(nanoseconds: 2_000_000) }
        XCTAssertEqual(gate.cancelled.withLock { $0 }, 1, "no waiter left: the task is cancelled")
        XCTAssertEqual(pool.count, 0)
        // A new waiter starts a new task.
        gate.open.withLock { $0 = true }
        let again = await pool.value(for: "k", cancelled: -1) { await gate.run(3) }
        XCTAssertEqual(again.value, 3)
    }

    func testACancelledCallerNeverStartsATask() async {
        let pool = TaskCoalescer<String, Int>()
        let gate = Gate()
        let t = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await pool.value(for: "k", cancelled: -1) { await gate.run(1) }
        }
        let r = await t.value
        XCTAssertEqual(r.value, -1)
        XCTAssertEqual(gate.starts.withLock { $0 }, 0)
    }
}
