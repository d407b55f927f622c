import Foundation
import XCTest
@testable import ImageFetch

/// A test case whose disk caches live in temporary directories, removed after each test.
class TemporaryCacheTestCase: XCTestCase {
    /// Removed after each test (add any other temporary directory a test makes).
    var directories: [String] = []

    override func tearDown() {
        for dir in directories { try? FileManager.default.removeItem(atPath: dir) }
        directories = []
        super.tearDown()
    }

    /// A cache in a new temporary directory (`DIR/cache`).
    func makeCache(sizeLimit: Int64?) -> DiskCache {
        let dir = NSTemporaryDirectory() + "imgfetch-\(type(of: self))-\(UUID().uuidString)"
        directories.append(dir)
        return DiskCache(directory: dir + "/cache", sizeLimit: sizeLimit)
    }

    static func key(_ name: String, _ processing: Processing = .original) -> CacheKey {
        CacheKey(source: .http("https://example.com/\(name)"), processing: processing)
    }
}
