import XCTest
@testable import ImageFetch

/// The `Content-Range` of a resumed download's 206: only a range that runs to the end continues it.
final class ContentRangeTests: XCTestCase {
    func testARangeToTheEndIsRead() {
        XCTAssertEqual(ContentRange("bytes 100-999/1000"), ContentRange("bytes 100-999/1000"))
        XCTAssertEqual(ContentRange("bytes 100-999/1000")?.start, 100)
        XCTAssertEqual(ContentRange("bytes 100-999/1000")?.total, 1000)
        XCTAssertEqual(ContentRange("bytes 5-9/*")?.start, 5)
        XCTAssertNil(ContentRange("bytes 5-9/*")?.total)
    }

    func testAnythingElseIsRefused() {
        for value in ["bytes 100-500/1000", "bytes 100-1000/1000", "items 1-2/3", "bytes -1-9/10", "bytes 9-5/10",
                      "bytes */1000", "bytes 1-x/10", "", "bytes 0-9/10 "] {
            XCTAssertNil(ContentRange(value), value)
        }
        XCTAssertNil(ContentRange(nil))
    }
}
