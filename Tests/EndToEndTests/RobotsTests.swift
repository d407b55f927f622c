import Foundation
import XCTest

/// robots.txt (RFC 9309) as `prefetch` honours it by default and `get --robots` does: a
/// disallowed path is never requested and its line is `skipped`; robots.txt is fetched once per
/// origin per cache, by 4 processes too; 5xx = nothing requested from the origin and its lines
/// fail; 4xx = everything; `get --robots` of a disallowed image exits 9.
final class RobotsTests: E2ETestCase {
    private func prefetch(_ args: [String], timeout: TimeInterval = 30) throws -> RunResult {
        try imgfetch(["prefetch", "--cache-dir", cacheDir.path] + args, timeout: timeout)
    }

    /// What /robots.txt answers from now on.
    private func serveRobots(_ text: String, status: Int = 200, delay: Double = 0) throws {
        let body = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        _ = try TestServer.rawGet(port: server.port, path: "/__robots?status=\(status)&delay=\(delay)&body=\(body)")
    }

    private func records(_ r: RunResult) -> [[String: Any]] { r.json.filter { $0["summary"] as? Bool != true } }
    private func summary(_ r: RunResult) -> [String: Any] { r.json.first { $0["summary"] as? Bool == true } ?? [:] }
    private func record(_ r: RunResult, _ url: String) -> [String: Any] { records(r).first { $0["source"] as? String == url } ?? [:] }

    func testADisallowedPathIsNeverRequestedAndItsLineIsSkipped() throws {
        // The agent's own group wins over `*`, whatever the order; the longest match decides.
        try serveRobots("User-agent: *\nDisallow: /\n\nUser-agent: imgfetch\nDisallow: /img/\nAllow: /img/small\n")
        let blocked = imageURL("tiny.jpg"), allowed = imageURL("small.webp")
        let r = try prefetch(["--json", try writeList([blocked, allowed]).path])
        XCTAssertEqual(r.status, 0, "a skip by policy is not a failure:\n\(r)")
        XCTAssertEqual(record(r, blocked)["status"] as? String, "skipped", "\(r)")
        let skip = record(r, blocked)["skip"] as? [String: Any]
        XCTAssertEqual(skip?["cause"] as? String, "robots")
        XCTAssertEqual(skip?["rule"] as? String, "disallow: /img/")
        XCTAssertEqual(record(r, allowed)["status"] as? String, "ok", "\(r)")
        XCTAssertEqual(summary(r).int("skipped_robots"), 1, "\(r)")
        XCTAssertEqual(summary(r).int("failed"), 0, "\(r)")
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg")), 0, "the disallowed path was requested")
        XCTAssertEqual(try server.requestCount(imagePath("small.webp")), 1)
        XCTAssertEqual(try server.requestCount("/robots.txt"), 1)
        // The next run reads the cache's copy: robots.txt is not asked again within a day.
        let again = try prefetch(["--json", "--force-refresh", try writeList([blocked, allowed], name: "again.txt").path])
        XCTAssertEqual(again.status, 0, "\(again)")
        XCTAssertEqual(try server.requestCount("/robots.txt"), 1, "robots.txt fetched again from the same cache")
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg")), 0)
    }

    func testNoRobotsSaysSoOnceAndFetchesEverything() throws {
        try serveRobots("User-agent: *\nDisallow: /\n")
        let urls = [imageURL("tiny.jpg"), imageURL("small.webp")]
        let r = try prefetch(["--no-robots", try writeList(urls).path])
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(r.stderr.components(separatedBy: "--no-robots").count - 1, 1, "said once:\n\(r.stderr)")
        XCTAssertEqual(try server.requestCount("/robots.txt"), 0)
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg")), 1)
    }

    func testUnavailableRobotsFailsTheOriginsLinesWithoutRequestingThem() throws {
        try serveRobots("down", status: 503)
        let urls = [imageURL("tiny.jpg"), imageURL("small.webp"), imageURL("small.gif")]
        let r = try prefetch(["--json", try writeList(urls).path])
        XCTAssertEqual(r.status, 1, "its lines fail:\n\(r)")
        for url in urls {
            XCTAssertEqual(record(r, url)["status"] as? String, "failed", "\(r)")
            XCTAssertEqual(record(r, url)["robots"] as? String, "unavailable", "\(r)")
            XCTAssertEqual((record(r, url)["error"] as? [String: Any])?.int("status"), 503, "the robots.txt fetch's cause")
        }
        let log = try server.requestLog().map(\.path)
        XCTAssertEqual(log, ["/robots.txt"], "only robots.txt, once, was requested")
    }

    func testAnUnreachableOriginsLinesFailOnceSaidAndItsRobotsFetchCountsTowardTheBreaker() throws {
        let port = try LocalPorts.free()
        let dead = (1...6).map { "http://127.0.0.1:\(port)/d\($0).jpg" }
        let list = try writeList(dead + [imageURL("tiny.jpg")])
        let first = try prefetch(["--json", "--host-down-after", "1", list.path])
        XCTAssertEqual(first.status, 1, "\(first)")
        for url in dead {
            XCTAssertEqual(record(first, url)["robots"] as? String, "unavailable", "\(first)")
            XCTAssertEqual((record(first, url)["error"] as? [String: Any])?.string("cause"), "refused")
        }
        XCTAssertEqual(record(first, imageURL("tiny.jpg"))["status"] as? String, "ok", "another origin still runs")
        let said = first.stderrLines.filter { $0.contains("robots.txt is unavailable") }
        XCTAssertEqual(said.count, 1, "one line for the origin:\n\(first.stderr)")
        XCTAssertTrue(said.first?.contains("6 lines failed without a request") == true, first.stderr)
        // Its one robots.txt fetch marked it down (--host-down-after 1): the next run does not try it.
        let again = try prefetch(["--json", list.path])
        for url in dead { XCTAssertEqual((record(again, url)["error"] as? [String: Any])?.string("cause"), "host_down", "\(again)") }
    }

    func testAMissingRobotsTxtAllowsEverything() throws {
        try serveRobots("gone", status: 404)
        let urls = [imageURL("tiny.jpg"), imageURL("small.webp")]
        let r = try prefetch(["--json", try writeList(urls).path])
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(records(r).filter { $0["status"] as? String == "ok" }.count, 2, "\(r)")
        XCTAssertEqual(try server.requestCount("/robots.txt"), 1)
    }

    func testFourProcessesOnOneCacheFetchRobotsTxtOnce() throws {
        // robots.txt answers slowly, so that every process asks for it while the first fetches.
        try serveRobots("User-agent: *\nDisallow: /img/tiny\n", delay: 1)
        let lists = try (0..<4).map { i in
            try writeList([imageURL("tiny.jpg", "p=\(i)"), imageURL("small.webp", "p=\(i)")], name: "list\(i).txt")
        }
        let cache = cacheDir.path, home = home!, work = work!
        let runs = lists.map { list in
            Thread.detachNewThreadWithResult {
                try? Imgfetch.run(["prefetch", "--cache-dir", cache, "--json", list.path], home: home, currentDirectory: work, timeout: 60)
            }
        }
        for r in runs.map({ $0.wait() ?? nil }) {
            guard let r else { return XCTFail("a run did not start") }
            XCTAssertEqual(r.status, 0, "\(r)")
            XCTAssertEqual(records(r).filter { $0["status"] as? String == "skipped" }.count, 1, "\(r)")
        }
        XCTAssertEqual(try server.requestCount("/robots.txt"), 1, "robots.txt requested more than once by 4 processes on one cache")
        XCTAssertEqual(try server.requestLog().filter { $0.path.hasPrefix("/img/tiny") }.count, 0)
    }

    func testCrawlDelaySpacesTheOriginsRequests() throws {
        try serveRobots("User-agent: *\nCrawl-delay: 1\n")
        let urls = (0..<3).map { imageURL("tiny.jpg", "c=\($0)") }
        let r = try prefetch(["--json", "-j", "4", try writeList(urls).path])
        XCTAssertEqual(r.status, 0, "\(r)")
        let starts = try server.requestLog().filter { $0.path.hasPrefix("/img/") }.map(\.t).sorted()
        XCTAssertEqual(starts.count, 3)
        for (a, b) in zip(starts, starts.dropFirst()) { XCTAssertGreaterThan(b - a, 0.9, "requests \(starts) closer than the Crawl-delay") }
    }

    func testGetHonoursRobotsOnlyWhenAskedAndExits9WhenDisallowed() throws {
        try serveRobots("User-agent: *\nDisallow: /img/tiny\n")
        let out = file("out.jpg")
        let r = try get(["--robots", imageURL("tiny.jpg"), "-o", out.path])
        XCTAssertEqual(r.status, 9, "\(r)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "nothing is delivered")
        XCTAssertTrue(r.stderr.contains("robots.txt disallows it (disallow: /img/tiny)"), r.stderr)
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg")), 0)
        let plain = try get([imageURL("tiny.jpg"), "-o", out.path])
        XCTAssertEqual(plain.status, 0, "get reads no robots.txt unless asked:\n\(plain)")
        XCTAssertEqual(try server.requestCount("/robots.txt"), 1)
    }
}

/// A thread's result, waited for (four processes run at once, each from a thread of its own).
private final class ThreadResult<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var value: T?
    init(_ work: @escaping @Sendable () -> T) {
        Thread.detachNewThread { [self] in
            value = work()
            done.signal()
        }
    }
    func wait() -> T? {
        done.wait()
        return value
    }
}

private extension Thread {
    static func detachNewThreadWithResult<T>(_ work: @escaping @Sendable () -> T) -> ThreadResult<T> { ThreadResult(work) }
}
