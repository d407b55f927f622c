import XCTest
final class ImageFetchTestsPlaceholder: XCTestCase { func testPlaceholder() {} }
