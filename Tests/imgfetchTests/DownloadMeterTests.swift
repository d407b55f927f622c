@testable import imgfetch
import ImageFetch
import XCTest

/// `get`'s meter rate: from the first bytes, over what arrived before the meter was first drawn.
final class DownloadMeterTests: XCTestCase {
    private func meter() -> DownloadMeter { DownloadMeter(isTerminal: false, environment: { _ in nil }) }

    func testTheRateCoversTheBytesBeforeTheFirstDrawing() {
        let m = meter()
        // Read at the start (as `GetFeedback` does), then every 0.1 s; bytes in bursts 0.4 s apart,
        // the first before the first tick; none between the last two readings.
        for (time, total) in [(0, 0), (0.1, 4000), (0.2, 4000), (0.3, 4000), (0.4, 4000), (0.5, 8000), (0.6, 8000)] {
            m.sample(TransferMeter.Reading(total: Int64(total)), now: time)
        }
        XCTAssertEqual(m.rate ?? 0, 8000 / 0.6, accuracy: 1, "every byte since the start, not 0 B/s over the last 0.1 s")
    }

    func testTheRateStartsWithTheFirstBytesNotWithTheConnection() {
        let m = meter()
        for time in stride(from: 0.1, through: 2.0, by: 0.1) { m.sample(TransferMeter.Reading(total: 0), now: time) }
        XCTAssertNil(m.rate, "nothing arrived: no rate")
        m.sample(TransferMeter.Reading(total: 10_000), now: 2.1)
        XCTAssertEqual(m.rate ?? 0, 10_000 / 0.1, accuracy: 1, "two seconds of connecting are not in the rate")
    }

    func testAStallShowsZeroOnceTheWindowHasPassed() {
        let m = meter()
        m.sample(TransferMeter.Reading(total: 0), now: 0)
        m.sample(TransferMeter.Reading(total: 50_000), now: 0.5)
        for time in stride(from: 0.6, through: 3.0, by: 0.1) { m.sample(TransferMeter.Reading(total: 50_000), now: time) }
        XCTAssertEqual(m.rate, 0, "no byte in the last two seconds")
    }
}
