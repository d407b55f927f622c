@testable import imgfetch
import XCTest

/// `--source TEXT`'s byte search (the filter `cache ls|rm|prune` run per entry).
final class CacheEntryFilterTests: XCTestCase {
    func testSourceSearchFindsWhatStringContainsFinds() {
        let texts = ["", "a", "http://h/fake/000042/photo-42808.jpg", "https://h/café/ünï.jpg", "aaab", "/fake/"]
        let needles = ["", "a", "/fake/", "fake/0", "é/ü", "ü", "aab", "jpgx", "https://h/café/ünï.jpg!"]
        for text in texts {
            for needle in needles {
                XCTAssertEqual(CacheEntryFilter.contains(text, Array(needle.utf8)), needle.isEmpty || text.contains(needle),
                               "'\(text)' holds '\(needle)'")
            }
        }
        // Byte for byte, as grep: a decomposed é (e + U+0301) is not the precomposed one.
        XCTAssertFalse(CacheEntryFilter.contains("café", Array("cafe\u{301}".utf8)))
        XCTAssertTrue(CacheEntryFilter.contains("cafe\u{301}", Array("cafe\u{301}".utf8)))
    }
}
