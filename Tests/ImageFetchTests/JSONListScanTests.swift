@testable import ImageFetch
import XCTest

/// The JSON listing is scanned as it arrives: pieces of any size give the names of the whole.
final class JSONListScanTests: XCTestCase {
    private let a = String(repeating: "ab", count: 32), b = String(repeating: "0f", count: 32)

    private var listing: [UInt8] {
        Array("""
        [
        { "name":"\(a).meta", "type":"file", "mtime":"Tue, 01 Dec 2026 12:00:00 GMT", "size":412 },
        { "name" : "\(a).jpg" },{"name":"\\u0061\(b).meta"},{ "name":"not-a-cache-object.txt" },
        { "nam":"\(b).png", "x":"name", "name":"\(String(repeating: "z", count: 200))", "name":
          "\(b).meta" }, { "name":"\(b)" }
        ]

        """.utf8)
    }

    func testPiecesOfAnySizeGiveTheNamesOfTheWhole() {
        let whole = JSONListParser.names(listing)
        XCTAssertEqual(whole, ["\(a).meta", "\(a).jpg", "\(b).meta"])
        for size in 1...9 {
            var state = JSONListScanState()
            var start = 0
            while start < listing.count {
                let end = min(start + size, listing.count)
                listing[start..<end].withUnsafeBytes { state.feed($0) }
                start = end
            }
            XCTAssertEqual(state.names, whole, "pieces of \(size) bytes")
        }
    }

    func testNamesBeyondTheCapAreDroppedAndSaidSo() {
        var state = JSONListScanState(maxNames: 2)
        listing.withUnsafeBytes { state.feed($0) }
        XCTAssertEqual(state.names.count, 2)
        XCTAssertTrue(state.overflow)
    }
}
