@testable import imgfetch
@testable import ImageFetch
import XCTest

/// Names made for `--output-dir` from hostile values (a URL's path, a list's `name=`).
final class OutputTemplateTests: XCTestCase {
    func values(name: String) -> OutputTemplate.Values {
        OutputTemplate.Values(name: name, ext: "jpg", key: String(repeating: "a", count: 64), line: 1, host: "h", width: 1, height: 1)
    }

    func testC1ControlsAndBidiOverridesBecomeUnderscores() throws {
        let t = try OutputTemplate()
        // U+202E would show "gpj.exe" as "exe.jpg"; U+0085 is a C1 line break.
        XCTAssertEqual(t.render(values(name: "a\u{202E}b\u{85}c\u{2066}d\u{7F}e")), "a_b_c_d_e.jpg")
    }

    func testAValueIsCutAt120BytesOnACharacterBoundary() throws {
        let t = try OutputTemplate("{name}")
        let name = t.render(values(name: String(repeating: "€", count: 100)))   // 3 bytes each
        XCTAssertEqual(name.utf8.count, 120, name)
        XCTAssertEqual(name, String(repeating: "€", count: 40))
        let mixed = t.render(values(name: "ab" + String(repeating: "😀", count: 40)))   // 2 + 4 x 29 = 118
        XCTAssertEqual(mixed.utf8.count, 118, "no half character: \(mixed)")
    }

    func testNoHiddenFileOrDirectory() throws {
        XCTAssertThrowsError(try OutputTemplate(".ssh/{name}.{ext}"))
        XCTAssertThrowsError(try OutputTemplate("a/.config/{name}"))
        let t = try OutputTemplate("sub/{name}.{ext}")
        XCTAssertEqual(t.render(values(name: ".bashrc")), "sub/_bashrc.jpg")
        XCTAssertEqual(try OutputTemplate("x{name}").render(values(name: ".a")), "x.a", "a dot inside a component is fine")
    }

    func testPathAndDirOfHostileURLs() throws {
        func path(_ url: String) throws -> [String] { OutputTemplate.pathComponents(of: try Source(parsing: url)) }
        XCTAssertEqual(try path("http://h/a/b/c.jpg?q=1#f"), ["a", "b", "c.jpg"])
        XCTAssertEqual(try path("http://h/a/../../etc/x"), ["a", "_", "_", "etc", "x"], ".. is never resolved")
        XCTAssertEqual(try path("http://h/a%2Fb/%2e%2e/%00/./c//d"), ["a_b", "_", "_", "c", "d"])
        XCTAssertEqual(try path("http://h/.git/.x"), ["_git", "_x"], "never hidden")
        XCTAssertEqual(try path("http://h/"), [])
        XCTAssertEqual(OutputTemplate.pathComponents(of: .file(path: "/etc/passwd")), [], "files have no {path}")
        var v = values(name: "c")
        v.path = ["a", "b", "c.jpg"]
        XCTAssertEqual(try OutputTemplate("{path}").render(v), "a/b/c.jpg")
        XCTAssertEqual(try OutputTemplate("{dir}/{name}.{ext}").render(v), "a/b/c.jpg")
        v.path = ["c.jpg"]
        XCTAssertEqual(try OutputTemplate("{dir}/{name}.{ext}").render(v), "c.jpg", "no empty component, no leading /")
        XCTAssertEqual(try OutputTemplate("x/{dir}.{ext}").render(v), "x/_.jpg", "never hidden")
        XCTAssertEqual(try OutputTemplate("p{dir}-{name}").render(v), "p-c")
        v.path = []
        XCTAssertEqual(try OutputTemplate("{path}").render(v), "image")
        XCTAssertEqual(try OutputTemplate("{stem}.{ext}").render(v), "image.jpg")
    }

    func testPathTakesTheOutputFormatsExtension() throws {
        var v = values(name: "p087")
        v.path = ["d", "p087.jpg"]
        v.ext = "webp"
        XCTAssertEqual(try OutputTemplate("{path}").render(v), "d/p087.webp")
        XCTAssertEqual(try OutputTemplate("{dir}/{stem}-{w}.{ext}").render(v), "d/p087-\(v.width).webp")
        v.path = ["d", "photo.JPEG"]
        v.ext = "jpg"
        XCTAssertEqual(try OutputTemplate("{path}").render(v), "d/photo.JPEG", "an extension naming the format written stays")
        v.path = ["d", "a.b.png"]
        XCTAssertEqual(try OutputTemplate("{path}").render(v), "d/a.b.jpg", "only the last extension")
        XCTAssertEqual(try OutputTemplate("{stem}").render(v), "a.b")
        v.path = ["d", "noext"]
        XCTAssertEqual(try OutputTemplate("{path}").render(v), "d/noext", "no extension: kept")
        XCTAssertEqual(try OutputTemplate("{stem}").render(v), "noext")
        v.path = ["d", "x.png"]
        v.ext = "img"
        XCTAssertEqual(try OutputTemplate("{path}").render(v), "d/x.png", "bytes of an unknown format: kept")
    }
}
