import Foundation
import XCTest

/// The opt-out signals a dataset run honours (`--shard-dir`, or `--honor-opt-outs`): each skips its
/// image there (`"status":"skipped"`, cause `opt_out` and the directive), nothing of it in the
/// records' images or the tar; and not in a run that builds no dataset.
final class OptOutTests: E2ETestCase {
    private func serve(_ route: String, _ text: String) throws {
        let body = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        _ = try TestServer.rawGet(port: server.port, path: "/__\(route)?body=\(body)")
    }

    private func records(_ r: RunResult) -> [[String: Any]] { r.json.filter { $0["summary"] as? Bool != true } }
    private func status(_ r: RunResult, _ url: String) -> String? { records(r).first { $0.string("source") == url }?.string("status") }
    private func rule(_ r: RunResult, _ url: String) -> String? {
        (records(r).first { $0.string("source") == url }?["skip"] as? [String: Any])?.string("rule")
    }
    private func q(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }

    /// Each signal, and what it must decide: skipped (its directive) or not (nil).
    private func signals() throws -> [(url: String, rule: String?)] {
        try serve("tdmrep", #"[{"location": "/img/alpha*", "tdm-reservation": 1}, {"location": "/img/alpha.png?keep", "tdm-reservation": 0}]"#)
        try serve("robots", "User-agent: *\nContent-Usage: /img/small.gif train-ai=n\n")
        return [
            (imageURL("tiny.jpg", "xrobots=noai"), "X-Robots-Tag: noai"),
            (imageURL("tiny.jpg", "xrobots=" + q("imgfetch: noimageai, nofollow")), "X-Robots-Tag: noimageai"),
            (imageURL("tiny.jpg", "xrobots=" + q("otherbot: noml")), nil),
            (imageURL("tiny.jpg", "xrobots=noindex"), "X-Robots-Tag: noindex"),
            (imageURL("tiny.jpg", "tdm=1"), "tdm-reservation: 1"),
            (imageURL("tiny.jpg", "usage=" + q("train-ai=n")), "Content-Usage: train-ai=n"),
            (imageURL("tiny.jpg", "usage=" + q("bots=n, train-ai=y")), nil),
            (imageURL("tiny.jpg", "usage=" + q("train-genai=n")), nil),   // narrower than the run's train-ai
            (imageURL("tiny.jpg", "usage=" + q("bots=n")), "Content-Usage: bots=n"),   // the nearest broader statement
            (imageURL("alpha.png"), "tdmrep.json: location /img/alpha*"),
            (imageURL("alpha.png", "keep"), nil),
            (imageURL("alpha.png", "x&tdm=0"), nil),   // the response's own 0 overrides the file
            (imageURL("small.gif"), "robots.txt content-usage: train-ai=n"),
            (imageURL("small.webp"), nil),
            (imageURL("small.webp", "usage=" + q("train-ai=n,,")), nil),   // malformed: ignored, a -v note
        ]
    }

    func testEachSignalSkipsItsImageWithHonorOptOutsAndNotOtherwise() throws {
        let cases = try signals()
        let list = try writeList(cases.map(\.url))
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", "-v", "--honor-opt-outs", list.path])
        XCTAssertEqual(r.status, 0, "skips are not failures:\n\(r)")
        XCTAssertTrue(r.stderr.contains("Content-Usage \"train-ai=n,,\" does not parse: ignored"), r.stderr)
        for c in cases {
            XCTAssertEqual(status(r, c.url), c.rule == nil ? "ok" : "skipped", "\(c.url)\n\(r)")
            XCTAssertEqual(rule(r, c.url), c.rule, c.url)
        }
        XCTAssertEqual(r.json.last?.int("skipped_opt_out"), cases.filter { $0.rule != nil }.count, "\(r)")
        // Not a dataset run: every image is fetched (another cache: nothing of the first is reused).
        let plain = try imgfetch(["prefetch", "--cache-dir", root.appendingPathComponent("other").path, "--json", list.path])
        XCTAssertEqual(plain.status, 0, "\(plain)")
        XCTAssertEqual(records(plain).filter { $0.string("status") == "ok" }.count, cases.count, "\(plain)")
    }

    /// Decided on the headers: the transfer stops there (the server, sending 4000 bytes every 0.1 s,
    /// sends little of the 136 KB body; the whole would take 3.4 s).
    func testAnOptedOutTransferStopsAtItsHeaders() throws {
        let query = "xrobots=noai&trickle=100"
        let list = try writeList([imageURL("detail.jpg", query)])
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", "--honor-opt-outs", list.path])
        XCTAssertEqual(status(r, imageURL("detail.jpg", query)), "skipped", "\(r)")
        let sent = try XCTUnwrap(try server.requests(imagePath("detail.jpg", query)).first?.sent)
        XCTAssertLessThan(sent, 136_966 / 2, "the body was read on")
    }

    func testADatasetRunSkipsOptedOutImagesAndPutsNothingOfThemInTheTar() throws {
        let optedOut = imageURL("tiny.jpg", "xrobots=noai"), kept = imageURL("small.webp")
        let list = try writeList([optedOut, kept])
        let shards = work.appendingPathComponent("shards")
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, list.path, "--shard", "1/1", "--shard-dir", shards.path, "--shard-tar"])
        XCTAssertEqual(r.status, 0, "\(r)")
        let recs = try String(contentsOf: shards.appendingPathComponent("00001-of-00001.ndjson"), encoding: .utf8)
            .split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(recs.first { $0.int("line") == 1 }?.string("status"), "skipped", "\(recs)")
        XCTAssertNil(recs.first { $0.int("line") == 1 }?["path"] as? String)
        let listing = ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["tar", "-tf", shards.appendingPathComponent("00001-of-00001.tar").path],
                                        environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(listing.stdoutText.split(separator: "\n").sorted(), ["000000002.json", "000000002.webp"], "\(listing)")
        // --no-honor-opt-outs: the same shard run again fetches it.
        let all = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, list.path, "--shard", "1/1", "--shard-dir", shards.path,
                                "--no-honor-opt-outs", "--redo", "--json"])
        XCTAssertEqual(records(all).filter { $0.string("status") == "ok" }.count, 2, "\(all)")
    }
}
