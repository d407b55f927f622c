import Foundation
import XCTest

/// `cache sheet`: a contact sheet of the newest variants (originals with --originals), made by
/// libvips (thumbnail, text, arrayjoin), labelled so that sources can be told apart.
final class CacheSheetTests: E2ETestCase {
    private func sheet(_ args: [String]) throws -> RunResult {
        try imgfetch(["cache", "sheet", "--cache-dir", cacheDir.path] + args, timeout: 60)
    }

    /// Caches five fixtures and one more as they are: originals only (put on a sheet by --originals).
    private func fillCache() throws {
        for name in ["photo.jpg", "portrait.jpg", "alpha.png", "small.webp", "small.gif"] {
            assertExit(try get([E2EPaths.fixture(name).path, "-o", file("o-\(name)").path]), 0)
        }
        // A name that is Pango markup unless escaped (libvips' text operation reads markup).
        try FileManager.default.copyItem(at: E2EPaths.fixture("tiny.jpg"), to: file("a&b<i>c.jpg"))
        assertExit(try get([file("a&b<i>c.jpg").path, "--no-keep-original", "-o", file("o-markup.jpg").path]), 0)
    }

    func testTheSheetIsColumnsByRowsOfCellsAndDecodes() throws {
        try fillCache()
        let out = file("sheet.jpg")
        let listed = try imgfetch(["cache", "ls", "--json", "--cache-dir", cacheDir.path]).json.count
        XCTAssertGreaterThanOrEqual(listed, 6)
        let r = try sheet(["-o", out.path, "--columns", "3", "--size", "100", "--limit", "6", "--originals"])
        assertExit(r, 0)
        // A cell is (size + 8) x (size + 8 + 14 + 4): six entries on three columns are two rows.
        assertImageFile(out, .jpeg, width: 3 * 108, height: 2 * 126, "\(r)")
        // And libvips decodes all of it: made into a PNG of the same size.
        let decoded = try imgfetch(["get", "--cache-dir", root.appendingPathComponent("other-cache").path,
                                    out.path, "-f", "png", "-o", file("sheet.png").path])
        assertExit(decoded, 0)
        assertImageFile(file("sheet.png"), .png, width: 324, height: 252)
    }

    func testLimitTakesTheNewestAndFewerEntriesThanColumnsMakeOneRow() throws {
        try fillCache()
        let out = file("two.png")
        let r = try sheet(["-o", out.path, "--columns", "4", "--size", "64", "--limit", "2", "--originals"])
        assertExit(r, 0)
        assertImageFile(out, .png, width: 2 * 72, height: 64 + 26, "\(r)")
        XCTAssertTrue(r.stderr.contains("2 entries"), "\(r)")
    }

    /// A label wider than its picture is one line ending in an ellipsis, whole: its ink touches
    /// neither edge of the label strip (a wrapped label was cut off at the top and bottom).
    func testALongLabelIsOneWholeLine() throws {
        let name = "a-rather-long-file-name-here.jpg"
        try FileManager.default.copyItem(at: E2EPaths.fixture("tiny.jpg"), to: file(name))
        assertExit(try get([file(name).path, "--no-keep-original", "-o", file("o.jpg").path]), 0)
        let out = file("label.png")
        assertExit(try sheet(["-o", out.path, "--size", "64", "--limit", "1", "--originals"]), 0)
        assertImageFile(out, .png, width: 72, height: 90)
        let rows = file("rows.json")
        try Fidelity.python("""
            import json, numpy as np
            from PIL import Image
            a = np.asarray(Image.open('\(out.path)').convert('L')).astype(int)
            strip = a[72:90]
            ink = [int(y) for y in range(strip.shape[0]) if (strip[y] < 128).any()]
            cols = [int(x) for x in range(strip.shape[1]) if (strip[:, x] < 128).any()]
            json.dump({'rows': ink, 'cols': cols}, open('\(rows.path)', 'w'))
            """)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: rows)) as? [String: [Int]])
        let ink = try XCTUnwrap(object["rows"])
        XCTAssertFalse(ink.isEmpty, "the label is drawn")
        XCTAssertGreaterThan(ink.min() ?? 0, 0, "not cut at the top: \(ink)")
        XCTAssertLessThan(ink.max() ?? 17, 17, "not cut at the bottom: \(ink)")
        XCTAssertLessThanOrEqual((ink.max() ?? 0) - (ink.min() ?? 0), 13, "one line: \(ink)")
        XCTAssertLessThanOrEqual(object["cols"]?.count ?? 99, 64, "within the picture's width")
    }

    /// Two sources with the same file name in different folders, as a user's tree has them: the
    /// same picture, and labels that differ ("0010/p010.jpg", "0210/p010.jpg"; both read
    /// "p010.jpg" before). Compared as the label strips' pixels, the pictures above them equal.
    func testLabelsTellSourcesWithTheSameFileNameApart() throws {
        for folder in ["0010", "0210"] {
            try FileManager.default.createDirectory(at: file("d/\(folder)"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: E2EPaths.fixture("tiny.jpg"), to: file("d/\(folder)/p010.jpg"))
            assertExit(try get([file("d/\(folder)/p010.jpg").path, "-s", "32", "-o", file("o-\(folder).jpg").path]), 0)
        }
        let out = file("two.png")
        let r = try sheet(["-o", out.path, "--columns", "2", "--size", "100"])
        assertExit(r, 0)
        XCTAssertEqual(r.stdout, Data(), "nothing on stdout")
        assertImageFile(out, .png, width: 2 * 108, height: 126, "\(r)")
        let verdict = file("strips.json")
        try Fidelity.python("""
            import json, numpy as np
            from PIL import Image
            a = np.asarray(Image.open('\(out.path)').convert('L')).astype(int)
            pictures = [a[0:108, x:x + 108] for x in (0, 108)]
            labels = [a[108:126, x:x + 108] for x in (0, 108)]
            json.dump({'pictures_equal': bool((pictures[0] == pictures[1]).all()),
                       'labels_equal': bool((labels[0] == labels[1]).all()),
                       'ink': [int((l < 128).sum()) for l in labels]}, open('\(verdict.path)', 'w'))
            """)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: verdict)) as? [String: Any])
        XCTAssertEqual(object["pictures_equal"] as? Bool, true, "the same picture in both cells: \(object)")
        XCTAssertEqual(object["labels_equal"] as? Bool, false, "the labels tell the two sources apart: \(object)")
        XCTAssertFalse((object["ink"] as? [Int] ?? [0]).contains(0), "both labels are drawn: \(object)")
    }

    /// The default sheet has the variants only: each source once, not again as its full-size
    /// original; --originals adds them; a cache of originals only names --originals.
    func testVariantsOnlyUnlessOriginals() throws {
        for name in ["photo.jpg", "portrait.jpg"] {
            assertExit(try get([E2EPaths.fixture(name).path, "-s", "48", "-o", file("o-\(name)").path]), 0)
        }
        let variants = try imgfetch(["cache", "ls", "--variants", "--json", "--cache-dir", cacheDir.path]).json.count
        let all = try imgfetch(["cache", "ls", "--json", "--cache-dir", cacheDir.path]).json.count
        XCTAssertEqual(variants, 2)
        XCTAssertEqual(all, 4, "each original kept beside its variant")

        let plain = try sheet(["-o", file("v.png").path, "--size", "64"])
        assertExit(plain, 0)
        assertImageFile(file("v.png"), .png, width: 2 * 72, height: 90, "two cells: the variants")
        XCTAssertTrue(plain.stderr.contains("2 entries") && plain.stderr.contains("2 originals left out: --originals adds them"), "\(plain)")

        let with = try sheet(["-o", file("all.png").path, "--size", "64", "--originals"])
        assertExit(with, 0)
        assertImageFile(file("all.png"), .png, width: 4 * 72, height: 90, "four cells: variants and originals")
        XCTAssertTrue(with.stderr.contains("4 entries"), "\(with)")

        let originalsOnly = root.appendingPathComponent("originals-only")
        assertExit(try imgfetch(["get", "--cache-dir", originalsOnly.path, E2EPaths.fixture("tiny.jpg").path, "-o", file("t.jpg").path]), 0)
        let none = try imgfetch(["cache", "sheet", "--cache-dir", originalsOnly.path, "-o", file("none.png").path])
        assertExit(none, 1)
        XCTAssertTrue(none.stderr.contains("--originals"), "\(none)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("none.png").path))
    }

    func testUsageErrorsAndAnEmptyCache() throws {
        assertExit(try sheet([]), 2)
        assertExit(try sheet(["-o", file("s.gif").path]), 2)
        assertExit(try sheet(["-o", file("s.jpg").path, "--columns", "0"]), 2)
        let empty = try sheet(["-o", file("s.jpg").path])
        assertExit(empty, 1)
        XCTAssertTrue(empty.stderr.contains("empty"), "\(empty)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("s.jpg").path))
    }
}
