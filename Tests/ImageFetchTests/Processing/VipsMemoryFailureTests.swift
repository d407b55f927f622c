import XCTest
@testable import ImageFetch

/// A libvips allocation that failed (under a memory limit, or an image too large for the machine)
/// is said as such, never as "not a decodable image" (issue 41, point 2).
final class VipsMemoryFailureTests: XCTestCase {
    func testAnAllocationFailureIsTooLargeNotUndecodable() {
        for message in ["vips_tracked: out of memory --- size == 8432MB",
                        "thumbnail failed\nvips_malloc: out of memory --- size == 2GB",
                        "buffer: unable to allocate 8432MB"] {
            let error = VipsProcessor.memoryFailure(VipsFailure(message: message))
            XCTAssertEqual(error?.code, "too_large", message)
            XCTAssertFalse(error?.message.contains("not a decodable image") ?? true, message)
            XCTAssertTrue(error?.message.contains("memory") ?? false, message)
        }
    }

    func testOtherFailuresAreNotMemoryFailures() {
        for message in ["VipsJpeg: Premature end of JPEG file", "not a known image format", ""] {
            XCTAssertNil(VipsProcessor.memoryFailure(VipsFailure(message: message)), message)
        }
    }
}
