import Foundation
import XCTest

/// A remote hit asks for the image beside its metadata. That early read must cost nothing more
/// when the metadata is absent or fails (it is cancelled), nor more than the metadata states when
/// the store announces a larger image (it ends at the head): a store that answers every image with
/// 1 GB of zeros (Tests/Support/hostile_store.py, mode speculative) takes a `get` to no more memory
/// than a plain miss.
final class RemoteTierSpeculativeReadTests: E2ETestCase {
    /// `imgfetch ARGS` under /usr/bin/time: the result and the peak RSS in KiB.
    private func measured(_ args: [String]) throws -> (RunResult, Int?) {
        let rss = root.appendingPathComponent("rss-\(UUID().uuidString)")
        let binary = try XCTUnwrap(E2EPaths.binary)
        let r = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/time"), ["-f", "%M", "-o", rss.path, binary.path] + args,
                                  environment: Imgfetch.baseEnvironment(home: home), currentDirectory: work, timeout: 60)
        XCTAssertFalse(r.timedOut, "\(r)")
        let text = (try? String(contentsOf: rss, encoding: .utf8)) ?? ""
        return (r, text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
    }

    private func run(meta: String, template: String = "") throws -> (RunResult, Int, TimeInterval) {
        let store = try HostileStore("speculative") { dir in
            try meta.write(to: dir.appendingPathComponent("meta"), atomically: true, encoding: .utf8)
            try template.write(to: dir.appendingPathComponent("template"), atomically: true, encoding: .utf8)
        }
        defer { store.stop() }
        let cache = root.appendingPathComponent("cache-\(meta)").path
        let start = Date()
        let (r, peak) = try measured(["get", "--cache-dir", cache, "--remote-cache", store.url("/t/"), "--remote-cache-mode", "read",
                                      imageURL("tiny.jpg", "v=\(meta)"), "-s", "32", "-o", file("\(meta).jpg").path])
        let elapsed = Date().timeIntervalSince(start)
        assertExit(r, 0)
        assertImageFile(file("\(meta).jpg"), .jpeg)
        // (Cancelled early enough, the image's request may never reach the store's log.)
        if meta == "template" {
            XCTAssertTrue(store.requests().contains { $0.contains(".jpg ") }, "the image was asked for: \(store.requests())")
        }
        return (r, try XCTUnwrap(peak, "peak RSS"), elapsed)
    }

    /// The peak of a plain miss (no tier) with the same processing, for comparison.
    private func baseline() throws -> Int {
        let (r, peak) = try measured(["get", "--cache-dir", root.appendingPathComponent("plain").path,
                                      imageURL("tiny.jpg", "v=plain"), "-s", "32", "-o", file("plain.jpg").path])
        assertExit(r, 0)
        return try XCTUnwrap(peak)
    }

    func testAnAbsentOrFailingMetadataCancelsTheEarlyImageRead() throws {
        let plain = try baseline()
        for meta in ["absent", "fail"] {
            let (r, peak, elapsed) = try run(meta: meta)
            print("get with a tier whose .meta is \(meta): peak RSS \(peak) KiB (no tier: \(plain) KiB), \(elapsed) s")
            XCTAssertLessThan(peak, plain + 16 * 1024, "peak RSS \(peak) KiB against \(plain) KiB without a tier:\n\(r)")
            XCTAssertLessThan(elapsed, 1.5, "the early read was waited for")
        }
    }

    func testAnImageAnnouncingMoreThanItsMetadataEndsAtItsHead() throws {
        // A real entry's metadata, made to state a 635-byte image under whatever key is asked for.
        assertExit(try get([imageURL("tiny.jpg"), "-s", "32", "-o", file("seed.jpg").path]), 0)
        let metaFile = try XCTUnwrap(regularFiles(under: cacheDir).first { $0.pathExtension == "meta" })
        let template = try String(contentsOf: metaFile, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map { line -> String in
                if line.hasPrefix("key\t") { return "key\tKEY" }
                if line.hasPrefix("bytes\t") { return "bytes\t635" }
                if line.hasPrefix("format\t") { return "format\tjpeg" }
                return String(line)
            }.joined(separator: "\n")
        let plain = try baseline()
        let (r, peak, elapsed) = try run(meta: "template", template: template)
        print("get with a tier announcing 1 GB for a 635-byte entry: peak RSS \(peak) KiB (no tier: \(plain) KiB), \(elapsed) s")
        XCTAssertLessThan(peak, plain + 16 * 1024, "peak RSS \(peak) KiB against \(plain) KiB without a tier:\n\(r)")
        XCTAssertLessThan(elapsed, 1.5, "the early read went on")
        XCTAssertTrue(r.stderr.contains("larger than") || r.stderr.contains("cannot read the image"), r.stderr)
    }
}
