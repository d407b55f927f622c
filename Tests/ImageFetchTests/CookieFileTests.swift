import XCTest
@testable import ImageFetch

/// The Netscape cookie file of `-b FILE`: which lines are cookies, which go to a host.
final class CookieFileTests: XCTestCase {
    private func parse(_ text: String) throws -> CookieFile { try CookieFile(parsing: Array(text.utf8)) }

    func testLinesGoToTheHostsTheirDomainsName() throws {
        let file = try parse("""
            # Netscape HTTP Cookie File

            example.com\tFALSE\t/\tFALSE\t0\texact\t1
            .example.com\tTRUE\t/\tFALSE\t0\tsub\t2
            #HttpOnly_img.example.com\tFALSE\t/\tTRUE\t0\thttponly\t3
            old.example.com\tFALSE\t/\tFALSE\t1000\texpired\t4\r
            """)
        XCTAssertEqual(file.cookies.count, 4)
        func names(_ url: String) -> [String] {
            file.lines(for: .http(url), now: 2000).map { String($0.split(separator: "\t").dropLast().last ?? "") }
        }
        XCTAssertEqual(names("https://example.com/a.jpg"), ["exact", "sub"])
        XCTAssertEqual(names("https://img.example.com/a.jpg"), ["sub", "httponly"])
        XCTAssertEqual(names("https://old.example.com:8443/a.jpg"), ["sub"], "an expired cookie is not sent")
        XCTAssertEqual(names("https://notexample.com/a.jpg"), [])
        XCTAssertEqual(file.lines(for: .file(path: "/a.jpg")), [])
    }

    func testAMalformedLineIsNamedByNumber() {
        for (text, line) in [("a\tb\n", 1), ("# c\nexample.com\tFALSE\t/\tFALSE\tsoon\tk\tv\n", 2),
                             ("example.com\tFALSE\t/\tFALSE\t0\tk\tv\u{1}\n", 1)] {
            XCTAssertThrowsError(try parse(text)) { error in
                XCTAssertEqual((error as? CookieFile.Malformed)?.line, line, text)
            }
        }
    }

    func testEqualFilesAreEqualAndHashAlike() throws {
        let a = try parse("example.com\tFALSE\t/\tFALSE\t0\tk\tv\n")
        let b = try parse("# another comment\nexample.com\tFALSE\t/\tFALSE\t0\tk\tv\n")
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.hashValue, b.hashValue)
        XCTAssertNotEqual(a, try parse("example.com\tFALSE\t/\tFALSE\t0\tk\tw\n"))
    }
}
