import XCTest
final class ArgumentKitTestsPlaceholder: XCTestCase { func testPlaceholder() {} }
