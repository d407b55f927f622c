import Foundation
import Synchronization
import XCTest
@testable import ImageFetch

/// The per-origin policy files (`PolicyFiles`, `PolicyFileStore`): one fetch per URL per cache, a
/// 4xx an answer, a 5xx or no answer unavailable unless a copy younger than 30 days is kept,
/// redirects followed; and the opt-out signals read from headers and tdmrep.json.
final class PolicyFilesTests: TemporaryCacheTestCase {
    /// Answers each URL with the status and body scripted for it (404 when none); counts requests.
    final class StatusLoader: DataLoading, Sendable {
        private let state = Mutex<(answers: [String: (Int, String, String?)], requests: [String])>(([:], []))
        func answer(_ url: String, _ status: Int, _ body: String = "", location: String? = nil) {
            state.withLock { $0.answers[url] = (status, body, location) }
        }
        var requests: [String] { state.withLock { $0.requests } }
        func cancelAll() {}
        func load(_ request: LoadRequest) async throws(FetchError) -> LoadResponse {
            let url = request.source.description
            let (status, body, location) = state.withLock { s in
                s.requests.append(url)
                return s.answers[url] ?? (404, "", nil)
            }
            if status == 0 { throw .unreachable("the connection was refused", cause: .refused) }
            var response = LoadResponse(bytes: Array(body.utf8))
            response.status = status
            response.redirectLocation = location
            return response
        }
    }

    private func store() -> PolicyFileStore {
        let dir = NSTemporaryDirectory() + "imgfetch-policy-\(UUID().uuidString)"
        directories.append(dir)
        return PolicyFileStore(cacheDirectory: dir)
    }

    private let url = "http://example.com:80/robots.txt"
    private let like = LoadRequest(source: .http("http://example.com/a.jpg"))

    func testAnAnswerIsFetchedOncePerCacheAndA4xxIsAnAnswer() async {
        let loader = StatusLoader(), kept = store()
        loader.answer(url, 200, "user-agent: *\ndisallow: /x\n")
        let first = await PolicyFiles(store: kept, loader: loader).fetch(url, like: like)
        XCTAssertEqual(first, .answered(status: 200, body: Array("user-agent: *\ndisallow: /x\n".utf8)))
        // Another process on the same cache (another PolicyFiles): the kept copy, no request.
        let second = await PolicyFiles(store: kept, loader: loader).fetch(url, like: like)
        XCTAssertEqual(second, first)
        XCTAssertEqual(loader.requests.count, 1)
        loader.answer("http://other.example/robots.txt", 410)
        let gone = await PolicyFiles(store: store(), loader: loader).fetch("http://other.example/robots.txt", like: like)
        XCTAssertEqual(gone, .answered(status: 410, body: []))
    }

    func testA5xxOrNoAnswerIsUnavailableUnlessACopyYoungerThan30DaysIsKept() async {
        let loader = StatusLoader(), kept = store()
        loader.answer(url, 503)
        let none = await PolicyFiles(store: store(), loader: loader).fetch(url, like: like)
        XCTAssertEqual(none, .unavailable(.httpStatus(503, retryAfter: nil)))
        loader.answer(url, 429)
        let busy = await PolicyFiles(store: store(), loader: loader).fetch(url, like: like)
        XCTAssertEqual(busy, .unavailable(.httpStatus(429, retryAfter: nil)), "429 is taken as 5xx")
        // A copy 10 days old: stale (beyond 24 h), refetched; the refetch's 503 uses the copy.
        let tenDaysAgo = FileSystem.now() - 10 * 86400
        kept.write(PolicyFileStore.Stored(url: url, fetched: tenDaysAgo, status: 200, body: Array("user-agent: *\ndisallow: /old\n".utf8)))
        let stale = await PolicyFiles(store: kept, loader: loader).fetch(url, like: like)
        XCTAssertEqual(stale, .answered(status: 200, body: Array("user-agent: *\ndisallow: /old\n".utf8)))
        // 40 days old: too old to stand in.
        let old = store()
        old.write(PolicyFileStore.Stored(url: url, fetched: FileSystem.now() - 40 * 86400, status: 200, body: []))
        loader.answer(url, 0)
        let unreachable = await PolicyFiles(store: old, loader: loader).fetch(url, like: like)
        guard case .unavailable(let error) = unreachable else { return XCTFail("\(unreachable)") }
        XCTAssertEqual(error.cause, .refused)
        // A 5xx is kept a while (another process does not ask again at once); no answer is not.
        var before = loader.requests.count
        _ = await PolicyFiles(store: old, loader: loader).fetch(url, like: like)
        XCTAssertEqual(loader.requests.count, before + 1, "no answer is asked again by the next process")
        let fresh = store()
        loader.answer(url, 500)
        _ = await PolicyFiles(store: fresh, loader: loader).fetch(url, like: like)
        before = loader.requests.count
        let again = await PolicyFiles(store: fresh, loader: loader).fetch(url, like: like)
        XCTAssertEqual(again, .unavailable(.httpStatus(500, retryAfter: nil)))
        XCTAssertEqual(loader.requests.count, before)
    }

    func testRedirectsAreFollowedUpToFive() async {
        let loader = StatusLoader()
        loader.answer(url, 301, location: "/r1")
        for i in 1...4 { loader.answer("http://example.com:80/r\(i)", 302, location: "http://example.com:80/r\(i + 1)") }
        loader.answer("http://example.com:80/r5", 200, "user-agent: *\ndisallow: /\n")
        let five = await PolicyFiles(store: nil, loader: loader).fetch(url, like: like)
        XCTAssertEqual(five, .answered(status: 200, body: Array("user-agent: *\ndisallow: /\n".utf8)))
        loader.answer("http://example.com:80/r5", 302, location: "/r6")
        let six = await PolicyFiles(store: nil, loader: loader).fetch(url, like: like)
        XCTAssertEqual(six, .answered(status: 404, body: []), "more than 5 redirects: as if there were no file")
    }

    func testTheStoreRefusesWhatItDidNotWrite() {
        let kept = store()
        XCTAssertTrue(kept.write(PolicyFileStore.Stored(url: url, fetched: 1, status: 200, body: [1, 2, 3])))
        XCTAssertEqual(kept.read(url)?.body, [1, 2, 3])
        XCTAssertNil(kept.read("http://example.com:80/other.txt"), "another URL's file")
        for bad in ["", "imgfetch-policy 1\n\(url)\nx\n200\n", "imgfetch-policy 1\n\(url)\n1\n700\n",
                    "imgfetch-policy 1\nfile:///etc/passwd\n1\n200\n", "imgfetch-policy 1\n\(url)\n1\n200", "imgfetch-policy 2\n\(url)\n1\n200\n"] {
            XCTAssertNil(PolicyFileStore.parse(Array(bad.utf8)), bad)
        }
        kept.write(PolicyFileStore.Stored(url: url, fetched: FileSystem.now() + 3600, status: 200, body: []))
        XCTAssertNil(kept.read(url), "a time in the future is not believed")
    }

    func testXRobotsTagTDMRepAndContentUsage() {
        func tag(_ value: String) -> String? { OptOutSignals.robotsTag(HTTPHeaders([("X-Robots-Tag", value)]), agent: "imgfetch") }
        XCTAssertEqual(tag("noai"), "X-Robots-Tag: noai")
        XCTAssertEqual(tag("NoImageAI, nofollow"), "X-Robots-Tag: noimageai")
        XCTAssertEqual(tag("imgfetch: noml"), "X-Robots-Tag: noml")
        XCTAssertNil(tag("googlebot: noindex"), "scoped to another agent")
        XCTAssertNil(tag("unavailable_after: 25 Jun 2010 15:00:00 PST"))
        XCTAssertNil(tag("nofollow, noarchive"))
        XCTAssertEqual(OptOutSignals.tdmReservation(HTTPHeaders([("TDM-Reservation", " 1")])), true)
        XCTAssertNil(OptOutSignals.tdmReservation(HTTPHeaders([("tdm-reservation", "yes")])))
        func usage(_ field: String, _ category: String = "train-ai") -> Bool? { OptOutSignals.usage(field, category: category).denied }
        XCTAssertEqual(usage("train-ai=n"), true)
        XCTAssertEqual(usage("train-ai=y, bots=n"), false, "its own statement first")
        XCTAssertEqual(usage("bots=n"), true, "else the nearest broader one's")
        XCTAssertNil(usage("train-genai=n"), "a narrower category says nothing of train-ai")
        XCTAssertEqual(usage("train-genai=n", "train-genai"), true)
        XCTAssertEqual(usage("train-ai=n", "train-genai"), true)
        XCTAssertNil(usage("future-key=n, search=n"), "unknown keys and other categories are ignored")
        XCTAssertNil(usage("train-ai=maybe"), "an unknown value says nothing")
        XCTAssertTrue(OptOutSignals.usage("train-ai=n,,", category: "train-ai").malformed)
    }

    func testTDMRepFileLongestLocationWins() throws {
        let file = try XCTUnwrap(TDMRepFile(Array(#"""
            [{"location": "/", "tdm-reservation": 0, "extra": {"a": [1, true, null]}},
             {"location": "/images/*", "tdm-reservation": 1, "tdm-policy": "https://example.com/policy.json"},
             {"location": "/images/free/", "tdm-reservation": 0},
             {"location": "/bad", "tdm-reservation": 2}]
            """#.utf8)))
        XCTAssertEqual(file.rules.count, 3, "a reservation other than 0 or 1 is dropped")
        XCTAssertEqual(file.rule(path: "/images/a.jpg")?.reserved, true)
        XCTAssertEqual(file.rule(path: "/images/free/a.jpg")?.reserved, false)
        XCTAssertEqual(file.rule(path: "/other")?.reserved, false)
        for bad in ["", "{}", "[", "[{\"location\": \"/\"", String(repeating: "[", count: 100), "[1]"] {
            XCTAssertNil(TDMRepFile(Array(bad.utf8)), bad)
        }
    }
}
