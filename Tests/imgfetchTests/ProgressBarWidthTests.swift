@testable import imgfetch
import ImageFetch
import XCTest

/// The progress bar keeps one width through a run: the frames of a run, drawn at 40, 80 and 120
/// columns, all take the same columns and put the bar's end (`]`) in the same column, from the first
/// frame (nothing done, no transfer yet) through transfers starting and ending, the first failure,
/// counts gaining digits, to the last frame. (At 40 columns the bar was 11 to 24 wide as parts came
/// and went and counts grew.)
final class ProgressBarWidthTests: XCTestCase {
    /// A run of 130 lines: (done, failed, bytes, transfer bytes, running, elapsed seconds).
    static let run: [(Int, Int, Int64, Int64, Int, Double)] = [
        (0, 0, 0, 0, 0, 0.05), (0, 0, 0, 0, 2, 0.1), (1, 0, 900, 4_000, 2, 0.2), (9, 0, 9_000, 70_000, 2, 0.4),
        (10, 1, 10_500, 300_000, 1, 0.9), (64, 1, 2_000_000, 3_000_000, 2, 5), (99, 3, 40_000_000, 60_000_000, 0, 20),
        (129, 3, 70_000_000, 99_000_000, 1, 40), (130, 3, 71_000_000, 100_000_000, 0, 41),
    ]

    private func frames(total: Int?, columns: Int) -> [(text: String, visible: Int)] {
        let bar = ProgressBar(total: total, isTerminal: false, environment: { _ in nil })
        return Self.run.map { done, failed, bytes, received, running, elapsed in
            let state = ProgressBar.State(done: done, failed: failed, bytes: bytes, total: total,
                                          transfers: TransferMeter.Reading(total: received, running: running))
            let fraction = total.map { min(1, Double(done) / Double($0)) }
            return bar.line.render(bar.parts(state, elapsed: elapsed), fraction: fraction, width: columns - 1)
        }
    }

    func testTheLineAndItsBarKeepOneWidthThroughARun() {
        for columns in [40, 80, 120] {
            let frames = frames(total: 130, columns: columns)
            let report = frames.map { "'\($0.text)'" }.joined(separator: "\n")
            XCTAssertEqual(Set(frames.map(\.visible)).count, 1, "\(columns) columns, one width:\n\(report)")
            let ends = frames.map { frame in frame.text.firstIndex(of: "]").map { frame.text.distance(from: frame.text.startIndex, to: $0) } }
            XCTAssertEqual(Set(ends).count, 1, "\(columns) columns, the bar ends in one column: \(ends)\n\(report)")
            XCTAssertNotNil(ends.first ?? nil, "\(columns) columns: a bar is drawn\n\(report)")
            for frame in frames { XCTAssertLessThan(frame.visible, columns, "never wraps: '\(frame.text)'") }
            XCTAssertTrue(frames.last?.text.contains("130/130") == true && frames.last?.text.contains("3 failed") == true, report)
        }
    }

    func testWithoutATotalTheLineKeepsOneWidth() {
        for columns in [40, 80] {
            let frames = frames(total: nil, columns: columns)
            XCTAssertEqual(Set(frames.map(\.visible)).count, 1, "\(columns) columns:\n" + frames.map { "'\($0.text)'" }.joined(separator: "\n"))
        }
    }
}
