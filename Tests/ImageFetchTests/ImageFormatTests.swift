import XCTest
@testable import ImageFetch

/// The registry of output formats is the one place a format is described: names, extensions and
/// the man page's table follow it.
final class ImageFormatTests: XCTestCase {
    func testNamesAndExtensionsParse() {
        for spec in ImageFormat.registry {
            XCTAssertEqual(ImageFormat(name: spec.format.rawValue), spec.format)
            for ext in spec.extensions {
                XCTAssertEqual(ImageFormat(fileExtension: ext.uppercased()), spec.format)
            }
            XCTAssertEqual(spec.format.fileExtension, spec.extensions.first)
        }
        XCTAssertEqual(ImageFormat(name: "original"), .original)
        XCTAssertNil(ImageFormat(fileExtension: "original"))
        XCTAssertNil(ImageFormat(fileExtension: "bmp"))
        XCTAssertNil(ImageFormat(name: "tiff"))
        XCTAssertEqual(ImageFormat.namesForHelp, "jpeg, png, webp, avif, gif, auto or original")
        XCTAssertEqual(ImageFormat(name: "auto"), .auto)
        XCTAssertNil(ImageFormat(fileExtension: "auto"))
    }

    func testManPageTableListsTheRegistry() throws {
        let man = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("man/imgfetch.1")
        let rows = try String(contentsOf: man, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix(".It Cm ") && $0.contains(" Ta ") }
        XCTAssertEqual(rows.count, ImageFormat.registry.count)
        for spec in ImageFormat.registry {
            let yesNo = { (b: Bool) in b ? "yes" : "no" }
            let row = ".It Cm \(spec.format.rawValue) Ta \(spec.extensions.joined(separator: ", ")) Ta \(yesNo(spec.hasAlpha)) Ta \(yesNo(spec.isAnimated)) Ta \(spec.saver)"
            XCTAssertTrue(rows.contains { $0 == row }, "man/imgfetch.1 lacks: \(row)")
        }
    }

    func testBackgroundColours() {
        XCTAssertEqual(RGBColor(parsing: "white"), .white)
        XCTAssertEqual(RGBColor(parsing: "#f00"), RGBColor(red: 255, green: 0, blue: 0))
        XCTAssertEqual(RGBColor(parsing: "0080FF"), RGBColor(red: 0, green: 128, blue: 255))
        XCTAssertNil(RGBColor(parsing: "#12345"))
        XCTAssertNil(RGBColor(parsing: "mauve-ish"))
        XCTAssertEqual(Processing(width: 10, format: .jpeg, background: .black).identifier, "w10-inside-jpeg-bg000000")
        XCTAssertEqual(Processing(width: 10, format: .png, linear: true).identifier, "w10-inside-png-linear")
    }
}
