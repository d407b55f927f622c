import Foundation
import XCTest

/// -H, -A, -e, -u, -b (and list lines' header=, user-agent=, referer=, cookie=, user=): what the
/// server receives (its log records every header), what keys the cache and shared downloads, and
/// that identity (Authorization, Cookie, -u) is written nowhere.
final class RequestHeaderTests: E2ETestCase {
    private let password = "pw-Secr3t"
    private let cookieValue = "session=c00kie-Secr3t"
    private let bearer = "Bearer t0ken-Secr3t"

    private func assertNoSecret(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for secret in [password, "c00kie-Secr3t", "t0ken-Secr3t"] {
            XCTAssertFalse(text.contains(secret), "\(what) shows a secret (\(secret)):\n\(text)", file: file, line: line)
        }
    }

    private func assertNoSecretInCache(file: StaticString = #filePath, line: UInt = #line) throws {
        for url in regularFiles(under: cacheDir) {
            let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
            assertNoSecret(text, url.path, file: file, line: line)
        }
        for args in [["ls"], ["ls", "--json"], ["info", imageURL("tiny.jpg"), "--json"]] {
            let r = try imgfetch(["cache"] + args + ["--cache-dir", cacheDir.path])
            assertNoSecret(r.stdoutText + r.stderr, "cache \(args.joined(separator: " "))", file: file, line: line)
        }
    }

    func testEveryOptionArrivesAndNoSecretIsWrittenDown() throws {
        let r = try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path, "--json", "-v",
                         "-H", "X-Custom: one two", "-H", "Authorization: \(bearer)", "-A", "Agent/9",
                         "-e", "https://a.example/page", "-b", cookieValue])
        assertExit(r, 0)
        let got = try XCTUnwrap(try server.requests(imagePath("tiny.jpg")).last).headers
        XCTAssertEqual(got["x-custom"], "one two")
        XCTAssertEqual(got["authorization"], bearer)
        XCTAssertEqual(got["user-agent"], "Agent/9")
        XCTAssertEqual(got["referer"], "https://a.example/page")
        XCTAssertEqual(got["cookie"], cookieValue)
        assertNoSecret(r.stdoutText + r.stderr, "get's output")
        try assertNoSecretInCache()
        XCTAssertTrue(try imgfetch(["cache", "info", imageURL("tiny.jpg"), "--cache-dir", cacheDir.path]).stdoutText
            .contains("tiny.jpg"), "cache info SOURCE finds the entry made with headers")
    }

    func testBasicAuthFromUserOption() throws {
        let r = try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path, "--json", "-u", "alice:\(password)"])
        assertExit(r, 0)
        XCTAssertEqual(try server.requests(imagePath("tiny.jpg")).last?.headers["authorization"],
                       "Basic " + Data("alice:\(password)".utf8).base64EncodedString())
        assertNoSecret(r.stdoutText + r.stderr, "get's output")
        try assertNoSecretInCache()
    }

    func testUserWithoutPasswordIsAUsageErrorThatPromptsForNothing() throws {
        let r = try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path, "-u", "alice"], timeout: 10)
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("no password"), r.stderr)
        XCTAssertEqual(try server.totalRequests(), 0)
        let bad = try get([imageURL("tiny.jpg"), "-H", "Authorization \(bearer)"])
        assertExit(bad, 2)
        assertNoSecret(bad.stderr, "a malformed -H's error")
    }

    func testNetrcGivesTheHostsLogin() throws {
        let netrc = file("netrc")
        try "machine 127.0.0.1 login nina password \(password)\n".write(to: netrc, atomically: true, encoding: .utf8)
        let r = try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path, "--json", "--netrc-file", netrc.path])
        assertExit(r, 0)
        XCTAssertEqual(try server.requests(imagePath("tiny.jpg")).last?.headers["authorization"],
                       "Basic " + Data("nina:\(password)".utf8).base64EncodedString())
        try FileManager.default.copyItem(at: netrc, to: home.appendingPathComponent(".netrc"))
        assertExit(try get([imageURL("tiny.jpg", "v=2"), "-o", file("a.jpg").path, "--netrc"]), 0)
        XCTAssertNotNil(try server.requests(imagePath("tiny.jpg", "v=2")).last?.headers["authorization"], "--netrc reads ~/.netrc")
        assertNoSecret(r.stdoutText + r.stderr, "get's output")
        try assertNoSecretInCache()
        assertExit(try get([imageURL("tiny.jpg"), "--netrc-file", file("none").path]), 2)
    }

    func testEmptyHeaderRemovesADefaultOne() throws {
        assertExit(try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path, "-H", "User-Agent:"]), 0)
        let got = try XCTUnwrap(try server.requests(imagePath("tiny.jpg")).last).headers
        XCTAssertNil(got["user-agent"], "-H 'User-Agent:' removes it: \(got)")
    }

    func testHeadersKeyTheCacheAndNoneKeepsTodaysKey() throws {
        let url = imageURL("tiny.jpg")
        func key(_ extra: [String]) throws -> (key: String?, cache: String?) {
            let r = try get([url, "--json", "-o", file("a.jpg").path] + extra)
            assertExit(r, 0)
            let record = singleRecord(r)
            return (record.string("key"), record.string("cache"))
        }
        let plain = try key([])
        XCTAssertEqual(try key([]).cache, "hit")
        let withAgent = try key(["-A", "Agent/1"])
        XCTAssertNotEqual(withAgent.key, plain.key)
        XCTAssertEqual(withAgent.cache, "miss", "another User-Agent never shares an entry")
        XCTAssertEqual(try key(["-A", "Agent/1"]).cache, "hit")
        XCTAssertEqual(try key(["-b", "a=1"]).cache, "miss")
        XCTAssertEqual(try key(["-b", "a=2"]).cache, "miss", "another cookie, another entry")
        XCTAssertEqual(try key(["-u", "a:1"]).cache, "miss")
        XCTAssertEqual(try key(["-u", "a:2"]).cache, "miss", "another password, another entry")
        XCTAssertEqual(try key(["-e", "https://r.example/"]).cache, "miss")
        XCTAssertEqual(try key(["-H", "X-A: 1"]).cache, "miss")
        XCTAssertEqual(try key([]).key, plain.key, "no option: today's key")
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg")), 8, "one download per distinct setting")
    }

    func testListLinesCarryTheirOwnOptionsAndNeverShareADownload() throws {
        let url = imageURL("photo.jpg", "trickle=20")
        let list = try writeList([
            "\(url) header=\"X-Line: one two\" user-agent=\"Line Agent\" referer=https://r.example/",
            "\(url) cookie=\"\(cookieValue)\"",
            "\(url) user=bob:\(password)",
            "\(url) user=bob",
            "\(url) bogus=1 cookie=\(cookieValue)",
        ])
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "--json", "-j", "4", list.path])
        assertExit(r, 1)
        let log = try server.requests(imagePath("photo.jpg", "trickle=20")).map(\.headers)
        XCTAssertEqual(log.count, 3, "three lines with different settings: three downloads")
        XCTAssertTrue(log.contains { $0["x-line"] == "one two" && $0["user-agent"] == "Line Agent" && $0["referer"] == "https://r.example/" }, "\(log)")
        XCTAssertTrue(log.contains { $0["cookie"] == cookieValue })
        XCTAssertTrue(log.contains { $0["authorization"] == "Basic " + Data("bob:\(password)".utf8).base64EncodedString() })
        XCTAssertTrue(r.stderr.contains("list.txt:4: "), r.stderr)
        XCTAssertTrue(r.stderr.contains("list.txt:5: "), r.stderr)
        assertNoSecret(r.stdoutText + r.stderr, "prefetch's output")
        try assertNoSecretInCache()
    }

    func testIdenticalListLinesShareOneDownload() throws {
        let url = imageURL("photo.jpg", "trickle=20")
        let list = try writeList(["\(url) user-agent=Same", "\(url) user-agent=Same"])
        assertExit(try imgfetch(["prefetch", "--cache-dir", cacheDir.path, "-j", "4", list.path]), 0)
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg", "trickle=20")), 1,
                                 "the same settings share the download in flight")
    }
}

/// Each redirect hop is made by the pipeline: identity (-u, -b, --netrc, and every -H header, which the
/// upload rule counts as a credential: X-Api-Key as much as Authorization) goes to the request's own
/// origin only, never to another host or port after a redirect (without --location-trusted).
final class RedirectIdentityTests: E2ETestCase {
    func testIdentityNeverFollowsARedirectToAnotherPort() throws {
        let other = try TestServer()
        defer { other.stop() }
        let target = other.url("/img/tiny.jpg")
        let start = server.url("/redirect?to=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let r = try get([start, "-o", file("a.jpg").path, "--json", "-u", "bob:pw1", "-b", "sid=pw2",
                         "-H", "Authorization: Bearer pw3", "-H", "Cookie: extra=pw4", "-H", "X-Api-Key: pw5",
                         "-H", "X-Plain: not-kept", "-A", "Agent/1"])
        assertExit(r, 0)
        let first = try XCTUnwrap(try server.requestLog().first { $0.path.hasPrefix("/redirect") }).headers
        XCTAssertNotNil(first["authorization"], "the origin gets the credentials")
        XCTAssertNotNil(first["cookie"])
        let hop = try XCTUnwrap(try other.requests("/img/tiny.jpg").first).headers
        XCTAssertNil(hop["authorization"], "no Authorization at the other port: \(hop)")
        XCTAssertNil(hop["cookie"], "no Cookie at the other port: \(hop)")
        XCTAssertEqual(first["x-api-key"], "pw5")
        XCTAssertNil(hop["x-api-key"], "an API key is a credential too: \(hop)")
        XCTAssertNil(hop["x-plain"], "any header may be a key: none follows to another host")
        XCTAssertEqual(hop["user-agent"], "Agent/1", "-A is not a header of the user's")
    }

    func testLocationTrustedSendsEveryHeaderToTheOtherHost() throws {
        let other = try TestServer()
        defer { other.stop() }
        let start = server.url("/redirect?to=" + other.url("/img/tiny.jpg").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        assertExit(try get([start, "-o", file("a.jpg").path, "--location-trusted", "-H", "X-Api-Key: pw5"]), 0)
        XCTAssertEqual(try XCTUnwrap(try other.requests("/img/tiny.jpg").first).headers["x-api-key"], "pw5")
    }

    func testAStoredRedirectIsKeyedByTheHeadersItWasAskedWith() throws {
        let target = imageURL("tiny.jpg").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let start = server.url("/redirect?to=\(target)&cc=max-age%3D600")
        let redirectPath = "/redirect?to=\(target)&cc=max-age%3D600"
        assertExit(try get([start, "-o", file("a.jpg").path, "-e", "https://r.example/"]), 0)
        XCTAssertEqual(try server.requestCount(redirectPath), 1)
        assertExit(try get([start, "-o", file("a.jpg").path]), 0)
        XCTAssertEqual(try server.requestCount(redirectPath), 2, "a redirect stored for one Referer is not another request's")
        assertExit(try get([start, "-o", file("a.jpg").path, "-e", "https://r.example/"]), 0)
        XCTAssertEqual(try server.requestCount(redirectPath), 2, "the same Referer reuses its stored redirect")
    }

    func testIdentityFollowsARedirectOnTheSameOrigin() throws {
        let start = server.url("/redirect?to=" + imageURL("tiny.jpg").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        assertExit(try get([start, "-o", file("a.jpg").path, "-u", "bob:pw1", "-b", "sid=pw2"]), 0)
        let hop = try XCTUnwrap(try server.requests(imagePath("tiny.jpg")).first).headers
        XCTAssertNotNil(hop["authorization"])
        XCTAssertEqual(hop["cookie"], "sid=pw2")
    }
}
