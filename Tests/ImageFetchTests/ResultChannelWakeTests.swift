import XCTest
@testable import ImageFetch

/// `ResultChannel.wake`: a consumer waiting in `receive` gets `.woken` (its timer's turn), values
/// and the end are unchanged, `next` never sees a wake, and a wake with no one waiting is lost.
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
        // A wake before the receiver waits is lost: wake a few times while it starts.
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

    func testNextSkipsWakesAndAWakeWithoutAReceiverIsLost() async {
        let channel = ResultChannel<Int>(capacity: 2)
        channel.wake()   // no one waits: nothing happens
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
