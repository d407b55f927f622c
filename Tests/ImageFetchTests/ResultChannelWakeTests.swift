import XCTest
@testable import ImageFetch

/// `ResultChannel.wake`: a consumer waiting in `receive` gets `.woken` (a notice posted, its timer's
/// turn), values and the end are unchanged, `next` never sees a wake, and a wake with no one
/// waiting is kept for the next `receive`, once, before the values (what woke it is read first).
final class ResultChannelWakeTests: XCTestCase {
    func testAWaitingReceiverIsWokenThenGetsTheValueAndTheEnd() async {
        let channel = ResultChannel<Int>(capacity: 2)
        let received = Task { () -> [String] in
            var seen: [String] = []
            while true {
                switch await channel.receive() {
                case .value(let v): seen.append("\(v)")
                case .woken: seen.append("woken")
                case .finished: return seen
                }
            }
        }
        // Wake a few times while it starts (before it waits, or while it waits).
        for _ in 0..<50 {
            channel.wake()
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        await channel.send(7)
        channel.finish()
        let seen = await received.value
        XCTAssertTrue(seen.contains("woken"), "\(seen)")
        XCTAssertEqual(seen.filter { $0 != "woken" }, ["7"], "values and the end are unchanged")
    }

    func testAWakeWithoutAReceiverIsKeptOnceBeforeTheValues() async {
        let channel = ResultChannel<Int>(capacity: 2)
        await channel.send(1)
        channel.wake()   // no one waits: the next receive is woken, once
        channel.wake()
        let first = await channel.receive()
        guard case .woken = first else { return XCTFail("\(first)") }
        let second = await channel.receive()
        guard case .value(1) = second else { return XCTFail("\(second)") }
        channel.finish()
        channel.wake()   // after the end: nothing
        let end = await channel.receive()
        guard case .finished = end else { return XCTFail("\(end)") }
    }

    func testNextSkipsWakes() async {
        let channel = ResultChannel<Int>(capacity: 2)
        channel.wake()
        let next = Task { await channel.next() }
        for _ in 0..<20 { channel.wake(); try? await Task.sleep(nanoseconds: 1_000_000) }
        await channel.send(3)
        let value = await next.value
        XCTAssertEqual(value, 3)
        channel.finish()
        let end = await channel.next()
        XCTAssertNil(end)
    }
}
