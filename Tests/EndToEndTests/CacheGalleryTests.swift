import Foundation
import XCTest

/// `cache gallery`: static HTML pages of the cache, checked as text and in a real browser
/// (Debian's chromium, headless, loading the page from file://).
final class CacheGalleryTests: E2ETestCase {
    /// A source path a hostile page would love: it closes the script element and opens another.
    private let hostileDirectory = "x</script><script>document.title='pwned'</script>.d"

    private func gallery(_ args: [String]) throws -> RunResult {
        try imgfetch(["cache", "gallery", "--cache-dir", cacheDir.path] + args)
    }

    /// Caches four fixtures at 160 pixels, as large as a picture box (variants and originals), and one
    /// file under the hostile path.
    /// Returns the number of variants (what the gallery shows without --originals).
    private func fillCache() throws -> Int {
        for name in ["photo.jpg", "portrait.jpg", "alpha.png", "small.webp"] {
            assertExit(try get([E2EPaths.fixture(name).path, "-s", "160", "-o", file("o-\(name)").path]), 0)
        }
        try FileManager.default.createDirectory(at: file(hostileDirectory), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: E2EPaths.fixture("tiny.jpg"), to: file(hostileDirectory + "/p.jpg"))
        assertExit(try get([hostileDirectory + "/p.jpg", "-s", "120", "--no-keep-original", "-o", file("o-p.jpg").path]), 0)
        let listed = try imgfetch(["cache", "ls", "--variants", "--json", "--cache-dir", cacheDir.path])
        assertExit(listed, 0)
        return listed.json.count
    }

    // MARK: - the browser

    /// Debian's chromium, or nil (then the browser checks fail under CI=true, else they are skipped).
    private func chromium() throws -> URL? {
        for path in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] where FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            XCTFail("chromium is not installed (scripts/install-deps.sh installs it); under CI the browser test fails")
            return nil
        }
        throw XCTSkip("chromium is not installed (scripts/install-deps.sh installs it)")
    }

    private func browse(_ browser: URL, _ page: URL, _ extra: [String]) -> RunResult {
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home.path
        // Tests talk only to 127.0.0.1: no background networking, and a dead local proxy for anything else.
        return ProcessRunner.run(browser, ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                           "--disable-background-networking", "--disable-component-update",
                                           "--no-first-run", "--proxy-server=http://127.0.0.1:9",
                                           "--user-data-dir=\(root.appendingPathComponent("chromium").path)",
                                           "--window-size=1000,800", "--virtual-time-budget=10000"] + extra + [page.absoluteString],
                                 environment: env, timeout: 120)
    }

    private func attribute(_ name: String, in dom: String) -> Int? {
        guard let range = dom.range(of: name + "=\"") else { return nil }
        return Int(dom[range.upperBound...].prefix { $0.isNumber })
    }

    // MARK: - tests

    func testEveryStringIsEscapedAndTheHostileSourceShowsAsText() throws {
        let count = try fillCache()
        let out = root.appendingPathComponent("gallery")
        let r = try gallery(["-o", out.path])
        assertExit(r, 0)
        XCTAssertEqual(r.stdoutText, out.path + "/index.html\n", "\(r)")
        let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        XCTAssertEqual(html.components(separatedBy: "<figure").count - 1, count, "one picture per entry")
        XCTAssertEqual(html.components(separatedBy: "<script").count - 1, 2, "only the page's own two script elements")
        XCTAssertFalse(html.contains("<script>document.title"), "the planted script is not markup")
        XCTAssertTrue(html.contains("x&lt;/script&gt;&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;.d/p.jpg"),
                      "HTML-escaped in the page")
        XCTAssertTrue(html.contains("x\\u003c/script\\u003e\\u003cscript\\u003edocument.title='pwned'\\u003c/script\\u003e.d/p.jpg"),
                      "JSON with < and > escaped for the script")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".html") }, ["index.html"])
    }

    /// The gallery shows the variants, not the full-size originals kept beside them; --originals
    /// adds those (every entry of the cache).
    func testVariantsOnlyUnlessOriginals() throws {
        let variants = try fillCache()
        let all = try imgfetch(["cache", "ls", "--json", "--cache-dir", cacheDir.path]).json
        let originals = all.filter { $0.string("variant") == "original" }.count
        XCTAssertEqual(originals, 4, "the four fixtures' originals are cached")
        func shown(_ out: URL) throws -> [[String: Any]] {
            let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
            let start = try XCTUnwrap(html.range(of: "<script type=\"application/json\" id=\"entries\">"))
            let end = try XCTUnwrap(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
            let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8)) as? [[String: Any]])
            XCTAssertEqual(html.components(separatedBy: "<figure").count - 1, entries.count, "a picture per entry")
            return entries
        }
        let plain = root.appendingPathComponent("plain")
        let r = try gallery(["-o", plain.path])
        assertExit(r, 0)
        XCTAssertEqual(r.stdoutText, plain.path + "/index.html\n")
        let plainEntries = try shown(plain)
        XCTAssertEqual(plainEntries.count, variants)
        XCTAssertEqual(plainEntries.filter { ($0["variant"] as? String) == "original" }.count, 0, "no original: \(plainEntries)")
        XCTAssertTrue(r.stderr.contains("\(originals) originals left out: --originals adds them"), "\(r)")

        let with = root.appendingPathComponent("with")
        assertExit(try gallery(["-o", with.path, "--originals"]), 0)
        let withEntries = try shown(with)
        XCTAssertEqual(withEntries.count, all.count, "every entry")
        XCTAssertEqual(withEntries.filter { ($0["variant"] as? String) == "original" }.count, originals)
    }

    func testTheBrowserLoadsEveryPictureFromFileURLsAndTheGridIsNotBlank() throws {
        let count = try fillCache()
        let out = root.appendingPathComponent("gallery")
        assertExit(try gallery(["-o", out.path]), 0)
        guard let browser = try chromium() else { return }
        let page = out.appendingPathComponent("index.html")

        let dom = browse(browser, page, ["--dump-dom"])
        XCTAssertEqual(dom.status, 0, "\(dom)")
        XCTAssertEqual(attribute("data-loaded", in: dom.stdoutText), count, "the page's script counted the loaded images:\n\(dom.stdoutText.prefix(600))")
        XCTAssertEqual(attribute("data-failed", in: dom.stdoutText), 0)
        XCTAssertFalse(dom.stdoutText.contains("<title>pwned"), "the planted script never ran")
        XCTAssertTrue(dom.stdoutText.contains("document.title='pwned'&lt;/script&gt;.d/p.jpg") ||
                      dom.stdoutText.contains("document.title=&#39;pwned&#39;&lt;/script&gt;.d/p.jpg"),
                      "the hostile source is text in the rendered page")

        let shot = root.appendingPathComponent("shot.png")
        let screenshot = browse(browser, page, ["--screenshot=\(shot.path)"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: shot.path), "\(screenshot)")
        // The grid starts below the ~90-pixel header: its pictures are colourful, text and background are
        // not (a blank grid has none; the five 160-pixel variants have ~18,000).
        let stats = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"),
                                      ["python3", E2EPaths.testsDir.appendingPathComponent("Support/png_region.py").path,
                                       shot.path, "0", "100", "1000", "700"],
                                      environment: ProcessInfo.processInfo.environment, timeout: 120)
        let fields = stats.stdoutText.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertEqual(fields.count, 4, "\(stats)")
        if fields.count == 4 {
            XCTAssertEqual(fields[0], 1000)
            XCTAssertGreaterThan(fields[2], 10_000, "colourful pixels where the grid is (not blank): \(fields)")
        }
    }

    /// A size such as "329K" stays on one line whatever the column width (it broke across lines):
    /// the page, with a probe appended, narrowed from 320 to 60 pixels a figure in the browser.
    func testTheBrowserNeverBreaksASizeAcrossLines() throws {
        _ = try fillCache()
        let out = root.appendingPathComponent("gallery")
        assertExit(try gallery(["-o", out.path]), 0)
        guard let browser = try chromium() else { return }
        let probe = """
            <script>
            (function () {
              var split = 0, checked = 0;
              for (var w = 60; w <= 320; w += 2) {
                document.querySelectorAll('figure').forEach(function (f) { f.style.width = f.style.minWidth = f.style.maxWidth = w + 'px'; });
                document.querySelectorAll('figcaption .meta').forEach(function (m) {
                  var node = m.firstChild, text = node && node.nodeValue, at = text ? text.lastIndexOf(', ') : -1;
                  if (at < 0 || !/^[0-9]/.test(text.slice(at + 2))) return;
                  var range = document.createRange();
                  range.setStart(node, at + 2);
                  range.setEnd(node, text.length);
                  checked++;
                  if (range.getClientRects().length > 1) split++;
                });
              }
              document.body.setAttribute('data-split', split);
              document.body.setAttribute('data-checked', checked);
            })();
            </script>
            """
        let page = out.appendingPathComponent("probe.html")
        try (String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8) + probe).write(to: page, atomically: true, encoding: .utf8)
        let dom = browse(browser, page, ["--dump-dom"])
        XCTAssertEqual(dom.status, 0, "\(dom)")
        XCTAssertGreaterThan(attribute("data-checked", in: dom.stdoutText) ?? 0, 100, "sizes were measured: \(dom.stdoutText.prefix(400))")
        XCTAssertEqual(attribute("data-split", in: dom.stdoutText), 0, "a size broken across lines")
    }

    func testCopyMakesAGalleryThatOutlivesTheCacheAndPagesSplitLargeCaches() throws {
        let count = try fillCache()
        let out = root.appendingPathComponent("copied")
        assertExit(try gallery(["-o", out.path, "--copy", "--page-size", "3"]), 0)
        let pages = (count + 2) / 3
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".html") }.sorted()
        XCTAssertEqual(names, (["index.html"] + (2...max(2, pages)).map { "page-\($0).html" }).sorted(), "\(count) entries, 3 per page")
        let images = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("images").path)
        XCTAssertEqual(images.count, count)
        let first = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        XCTAssertTrue(first.contains("src=\"images/"), "relative links to the copies")
        XCTAssertFalse(first.contains("src=\"file:"), "no picture points into the cache")
        XCTAssertTrue(first.contains("href=\"page-2.html\">next"), "pages are linked")

        // A smaller gallery into the same directory leaves no stale page behind.
        assertExit(try gallery(["-o", out.path, "--copy"]), 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".html") }, ["index.html"])

        assertExit(try imgfetch(["cache", "clear", "--cache-dir", cacheDir.path]), 0)
        guard let browser = try chromium() else { return }
        let dom = browse(browser, out.appendingPathComponent("index.html"), ["--dump-dom"])
        XCTAssertEqual(attribute("data-loaded", in: dom.stdoutText), count, "the copies load with the cache gone")
    }

    /// A directory the gallery did not make is never written into: its index.html and page-N.html
    /// may be the user's own. A gallery's own directory is rewritten.
    func testAUsersDirectoryIsNeverOverwritten() throws {
        _ = try fillCache()
        let mine = file("mine")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true)
        for name in ["index.html", "page-2.html"] { try Data("my own \(name)".utf8).write(to: mine.appendingPathComponent(name)) }
        let r = try gallery(["-o", mine.path])
        assertExit(r, 2)
        XCTAssertEqual(try String(contentsOf: mine.appendingPathComponent("index.html"), encoding: .utf8), "my own index.html")
        XCTAssertTrue(FileManager.default.fileExists(atPath: mine.appendingPathComponent("page-2.html").path))

        let ours = file("ours")
        assertExit(try gallery(["-o", ours.path]), 0)
        assertExit(try gallery(["-o", ours.path]), 0)   // its own directory: rewritten
    }

    /// --copy never writes through a link planted at DIR/images.
    func testCopiesAreNeverWrittenThroughALink() throws {
        _ = try fillCache()
        let outside = file("outside")
        let g = file("g")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        assertExit(try gallery(["-o", g.path]), 0)
        try FileManager.default.createSymbolicLink(atPath: g.appendingPathComponent("images").path, withDestinationPath: outside.path)
        let r = try gallery(["-o", g.path, "--copy"])
        XCTAssertNotEqual(r.status, 0, "\(r)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside.path), [], "nothing copied outside")
    }
}
