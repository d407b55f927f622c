import Foundation
import XCTest

/// Progressive JPEGs read only as far as a thumbnail needs (low-data mode, `--partial-progressive`),
/// seen on the wire: a throttled server (`?trickle=`) logs the body bytes it sent, so a stop is
/// measured there, not only in the record. The photos are made at test time (`TestPhotos`).
final class PartialProgressiveTests: E2ETestCase {
    private var photos: URL!
    private var origin: TestServer!
    private var names: [String] = []

    /// Made once for the class (converting the wallpapers takes seconds), removed after it.
    nonisolated(unsafe) private static var shared: (dir: URL, names: [String])?

    override func setUpWithError() throws {
        try super.setUpWithError()
        if Self.shared == nil {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imgfetch-photos-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            Self.shared = (dir, try TestPhotos.make(in: dir, fixtures: ["photo", "detail"], progressive: true))
        }
        guard let shared = Self.shared else { return }
        (photos, names) = shared
        origin = try TestServer(fixtures: photos)
    }

    override func tearDownWithError() throws {
        origin?.stop()
        try super.tearDownWithError()
    }

    override class func tearDown() {
        if let shared { try? FileManager.default.removeItem(at: shared.dir) }
        shared = nil
        super.tearDown()
    }

    /// `/img/NAME` at a few hundred KB/s (4000 bytes every 10 ms).
    private func throttled(_ name: String, _ extra: String = "") -> (url: String, path: String) {
        let path = "/img/\(name)?trickle=10" + extra
        return (origin.url(path), path)
    }

    /// The thumbnail of the whole file, made from the file itself.
    private func wholeThumbnail(_ name: String, _ args: [String] = ["-s", "320x320"]) throws -> URL {
        let out = file("whole-\(name)")
        assertExit(try get([photos.appendingPathComponent(name).path] + args + ["-o", out.path]), 0)
        return out
    }

    func testLowDataReadsAThirdOfTheBytesAtMostAndTheThumbnailIsWithin40dB() throws {
        var ratios: [Double] = []
        for name in names {
            let photo = "\(name)-p.jpg", (url, path) = throttled(photo)
            let size = try FileManager.default.attributesOfItem(atPath: photos.appendingPathComponent(photo).path)[.size] as? Int ?? 0
            let r = try get([url, "-s", "320x320", "--low-data", "--json", "-v", "-o", file("low-\(photo)").path])
            assertExit(r, 0)
            let record = singleRecord(r)
            XCTAssertEqual(record["partial"] as? Bool, true, "\(name): \(record)")
            XCTAssertEqual(record.int("source_bytes"), size, "\(record)")
            XCTAssertNil(record["source_sha256"], "no source digest for a partial read")
            XCTAssertTrue(r.stderr.contains("partial read"), r.stderr)
            let sent = try origin.requests(path).first?.sent ?? size
            XCTAssertLessThan(sent, size, "\(name): the server stopped sending")
            ratios.append(Double(sent) / Double(size))
            let psnr = try Fidelity.measure(["psnr-files", file("low-\(photo)").path, try wholeThumbnail(photo).path])["psnr"] as? Double ?? 0
            XCTAssertGreaterThanOrEqual(psnr, 40, "\(name): \(psnr) dB from the whole file's thumbnail")
        }
        let sorted = ratios.sorted()
        let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        XCTAssertGreaterThanOrEqual(ratios.count, 8)
        XCTAssertLessThanOrEqual(median, 0.35, "the median share of the bytes sent: \(sorted)")
    }

    func testBaselineCopiesAreReadWholeWithTheSameOutput() throws {
        for name in ["photo", "detail", "adwaita-d"] {
            let photo = "\(name).jpg", (url, path) = throttled(photo, "&v=b")
            let r = try get([url, "-s", "320x320", "--low-data", "--json", "-o", file("low-\(photo)").path])
            assertExit(r, 0)
            XCTAssertNil(singleRecord(r)["partial"], "\(singleRecord(r))")
            let size = try FileManager.default.attributesOfItem(atPath: photos.appendingPathComponent(photo).path)[.size] as? Int
            XCTAssertEqual(try origin.requests(path).first?.sent, size, "read whole")
            XCTAssertEqual(try Data(contentsOf: file("low-\(photo)")), try Data(contentsOf: try wholeThumbnail(photo)))
        }
    }

    func testANormalRequestAfterAPartialOneResumesAndGivesTheWholeFilesThumbnail() throws {
        let photo = "photo-p.jpg", (url, path) = throttled(photo)
        let low = try get([url, "-s", "320x320", "--low-data", "--json", "-o", file("low.jpg").path])
        XCTAssertEqual(singleRecord(low)["partial"] as? Bool, true)
        let again = try get([url, "-s", "320x320", "--low-data", "--json", "-o", file("again.jpg").path])
        XCTAssertEqual(singleRecord(again).string("cache"), "hit", "the partial entry answers low-data requests")
        let normal = try get([url, "-s", "320x320", "--json", "-o", file("normal.jpg").path])
        assertExit(normal, 0)
        XCTAssertNil(singleRecord(normal)["partial"], "a normal request never gets the partial entry")
        XCTAssertEqual(try Data(contentsOf: file("normal.jpg")), try Data(contentsOf: try wholeThumbnail(photo)))
        let requests = try origin.requests(path)
        XCTAssertEqual(requests.count, 2, "\(requests)")
        XCTAssertNotNil(requests.last?.headers["range"], "the rest of the prefix only")
        let listed = try imgfetch(["cache", "ls", "--json", "--cache-dir", cacheDir.path]).json
        XCTAssertTrue(listed.contains { ($0["variant"] as? String)?.hasSuffix("-partial") == true }, "\(listed)")
        assertExit(try imgfetch(["cache", "verify", "--cache-dir", cacheDir.path]), 0)
        let offline = try get([url, "-s", "320x320", "--no-partial-progressive", "--low-data", "--json", "-o", file("n.jpg").path])
        XCTAssertNil(singleRecord(offline)["partial"], "--no-partial-progressive: never")
    }

    /// Hostile scan scripts of a real progressive photo: a truncated scan, overlapping spectral
    /// bands, successive approximation out of order, too many scans. Never a crash or a hang; the
    /// low-data request ends as the normal one does (read whole, or refused as today), or, when what
    /// is hostile comes after the scans that serve, as a partial read of those.
    func testHostileScanScriptsNeverCrashOrHangAndEndAsWithoutLowData() throws {
        let data = [UInt8](try Data(contentsOf: photos.appendingPathComponent("photo-p.jpg")))
        let sos = data.indices.dropLast().filter { data[$0] == 0xFF && data[$0 + 1] == 0xDA }
        XCTAssertGreaterThanOrEqual(sos.count, 6, "jpegtran's default script")
        guard sos.count >= 6 else { return }
        var overlapping = data   // scan 3 (one chroma component's AC) made Y's AC 1-5 again
        overlapping[sos[2] + 5] = data[sos[1] + 5]
        overlapping[sos[2] + 7] = 1
        overlapping[sos[2] + 8] = 5
        var outOfOrder = data    // scan 2 (Y's AC 1-5 from bit 2) made a refinement of bits never sent
        outOfOrder[sos[1] + 9] = 0x32
        let second = Array(data[sos[1]..<sos[2]])   // before the boundary: the watcher sees them all
        let hostile: [String: [UInt8]] = [
            "truncated": Array(data[..<(sos[1] + (sos[2] - sos[1]) / 2)]),
            "overlapping": overlapping,
            "out-of-order": outOfOrder,
            "too-many": Array(data[..<sos[2]]) + Array(repeating: second, count: 300).flatMap { $0 } + Array(data[sos[2]...]),
        ]
        for (name, bytes) in hostile {
            try Data(bytes).write(to: photos.appendingPathComponent("hostile-\(name).jpg"))
            let url = origin.url("/img/hostile-\(name).jpg")
            let low = try get([url + "?v=low", "-s", "320x320", "--low-data", "--json", "-o", file("low-\(name).jpg").path])
            let normal = try get([url + "?v=normal", "-s", "320x320", "--json", "-o", file("normal-\(name).jpg").path])
            XCTAssertFalse(low.signaled || low.timedOut, "\(name): \(low)")
            XCTAssertTrue([0, 1, 7].contains(low.status), "\(name): \(low)")
            XCTAssertEqual(low.status, normal.status, "\(name): \(low) \(normal)")
            if low.status == 0 && singleRecord(low)["partial"] == nil {
                XCTAssertEqual(try Data(contentsOf: file("low-\(name).jpg")), try Data(contentsOf: file("normal-\(name).jpg")), name)
            }
        }
    }

    func testWordsSayWhatLowDataDidAndThePrefetchSummaryCountsPartialReads() throws {
        let list = try writeList(["photo-p.jpg", "detail-p.jpg", "photo.jpg"].map { throttled($0, "&v=list").url })
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--low-data", "-s", "320x320", "--json", list.path])
        assertExit(r, 0)
        let summary = r.json.last ?? [:]
        XCTAssertEqual(summary.int("partial"), 2, "\(summary)")
        XCTAssertGreaterThan(summary.int("partial_bytes_saved") ?? 0, 200_000, "\(summary)")
        XCTAssertTrue(r.stderr.contains("2 partial reads"), r.stderr)
        let plain = try get([throttled("photo.jpg", "&v=words").url, "-s", "320x320", "--low-data", "-v", "-o", file("w.jpg").path])
        XCTAssertTrue(plain.stderr.contains("no low-data source and no partial read: loaded the full image"), plain.stderr)
        XCTAssertTrue(plain.stderr.contains("Save-Data"), plain.stderr)
    }

    func testPartialProgressiveInAnyModeAndOfflineServesThePartialEntry() throws {
        let photo = "detail-p.jpg", (url, _) = throttled(photo, "&v=any")
        let r = try get([url, "-s", "100x100", "--partial-progressive", "-f", "png", "--json", "-o", file("a.png").path])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r)["partial"] as? Bool, true, "\(singleRecord(r))")
        for policy in ["--offline", "--cache-only"] {
            let served = try get([url, "-s", "100x100", "-f", "png", policy, "--json", "-o", file("b.png").path])
            assertExit(served, 0)
            XCTAssertEqual(singleRecord(served)["low_data"] as? Bool, true, "\(singleRecord(served))")
            XCTAssertEqual(singleRecord(served)["partial"] as? Bool, true)
        }
    }
}
