import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Messages that name the real cause, each checked for the words that name it.
final class CauseMessagesTests: E2ETestCase {
    func testCacheOnlyOnAStaleEntrySaysSoAndNamesOffline() throws {
        let url = imageURL("tiny.jpg", "cc=max-age=1")
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        Thread.sleep(forTimeInterval: 2.1)
        let r = try get([url, "-o", file("b.jpg").path, "--cache-only", "--json"])
        assertExit(r, 3)
        XCTAssertTrue(r.stderr.contains("cached but stale"), r.stderr)
        XCTAssertTrue(r.stderr.contains("expired") && r.stderr.contains(" s ago"), "how long ago it expired:\n\(r.stderr)")
        XCTAssertTrue(r.stderr.contains("--offline would serve it"), r.stderr)
        XCTAssertEqual(errorCode(singleRecord(r)), "not_cached", "the contract's code stays")
        // What it says is true: --offline serves it.
        assertExit(try get([url, "-o", file("c.jpg").path, "--offline"]), 0)
        // Nothing cached at all is still "not cached".
        let never = try get([imageURL("grey.jpg"), "-o", file("d.jpg").path, "--cache-only"])
        assertExit(never, 3)
        XCTAssertTrue(never.stderr.contains("not cached") && !never.stderr.contains("stale"), never.stderr)
    }

    /// Host A redirects to host B (another port: another origin), which wants a login.
    func testA401AfterARedirectToAnotherHostSaysTheLoginWasWithheld() throws {
        let other = try TestServer()
        defer { other.stop() }
        let url = server.url("/redirect?to=" + other.url("/auth/tiny.jpg"))
        let r = try get([url, "-u", "me:secret", "-o", file("a.jpg").path, "--json"])
        assertExit(r, 5)
        XCTAssertTrue(r.stderr.contains("HTTP 401"), r.stderr)
        XCTAssertTrue(r.stderr.contains("login was withheld"), r.stderr)
        XCTAssertTrue(r.stderr.contains("--location-trusted"), r.stderr)
        XCTAssertFalse(r.stderr.contains("secret"), "the password is never shown")
        XCTAssertEqual(errorCode(singleRecord(r)), "http_status")
        XCTAssertEqual((singleRecord(r)["error"] as? [String: Any])?["status"] as? Int, 401)
        XCTAssertNil(try other.requests("/auth/tiny.jpg").first?.headers["authorization"], "B was not sent the login")

        // --location-trusted sends it to B too, as curl's.
        let trusted = try get([url, "-u", "me:secret", "-o", file("b.jpg").path, "--location-trusted"])
        assertExit(trusted, 0)
        _ = assertImageFile(file("b.jpg"), .jpeg)
        XCTAssertNotNil(try other.requests("/auth/tiny.jpg").last?.headers["authorization"], "B was sent the login")

        // A 401 with no login withheld (none given) is a plain 401.
        let plain = try get([other.url("/auth/grey.jpg"), "-o", file("c.jpg").path])
        assertExit(plain, 5)
        XCTAssertTrue(plain.stderr.contains("HTTP 401") && !plain.stderr.contains("withheld"), plain.stderr)
    }

    func testAURLWithoutACommandSuggestsGet() throws {
        let r = try imgfetch([imageURL("tiny.jpg")])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("unknown command"), r.stderr)
        XCTAssertTrue(r.stderr.contains("imgfetch get \(imageURL("tiny.jpg"))"), r.stderr)
        XCTAssertEqual(try server.totalRequests(), 0)
        let other = try imgfetch(["fetch"])
        XCTAssertFalse(other.stderr.contains("imgfetch get"), "a word that is not a source gets no such hint:\n\(other.stderr)")
    }

    func testAShortKeyPrefixSaysHowLongOneIs() throws {
        assertExit(try get([imageURL("tiny.jpg"), "-o", file("a.jpg").path]), 0)
        for command in ["info", "rm"] {
            let r = try imgfetch(["cache", command, "000", "--cache-dir", cacheDir.path])
            assertExit(r, 2)
            XCTAssertTrue(r.stderr.contains("a key prefix needs at least 6 hex digits"), r.stderr)
        }
    }

    func testARawSpaceInAURLSaysToWritePercent20() throws {
        let r = try get([imageURL("a b.jpg"), "-o", file("a.jpg").path])
        assertExit(r, 2)
        XCTAssertTrue(r.stderr.contains("raw space") && r.stderr.contains("%20"), r.stderr)
        let list = try writeList([imageURL("a b.jpg")])
        let p = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, list.path])
        assertExit(p, 1)
        XCTAssertTrue(p.stderr.contains("list.txt:1:") && p.stderr.contains("a space in a URL is written %20"), p.stderr)
        XCTAssertTrue(p.stderr.contains(imageURL("a%20b.jpg")), "the URL as it should be written:\n\(p.stderr)")
        XCTAssertEqual(try server.totalRequests(), 0)
    }

    func testALineOfWordsIsNotAURL() throws {
        let list = try writeList(["not a url at all", imageURL("tiny.jpg")])
        let r = try imgfetch(["prefetch", "--cache-dir", cacheDir.path, list.path])
        assertExit(r, 1)
        XCTAssertTrue(r.stderr.contains("list.txt:1: 'not a url at all' is not a URL"), r.stderr)
        XCTAssertFalse(r.stderr.contains("unexpected 'a'"), "not read as the file 'not' with a field 'a':\n\(r.stderr)")
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg")), 1, "the other line still runs")
    }

    /// `busctl` faked on PATH as LowDataTests does; absent, NetworkManager cannot be asked.
    func testVerboseSaysWhyLowDataAutoResolvedToOff() throws {
        let bin = root.appendingPathComponent("bin", isDirectory: true)
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let args = [imageURL("tiny.jpg"), "--low-data=auto", "--low-data-source", imageURL("grey.jpg"), "-v"]
        let absent = try get(args + ["-o", file("a.jpg").path], env: ["PATH": bin.path])
        assertExit(absent, 0)
        XCTAssertTrue(absent.stderr.contains("--low-data=auto resolved to off: NetworkManager could not be asked"), absent.stderr)

        let busctl = bin.appendingPathComponent("busctl")
        try "#!/bin/sh\necho 'u 4'\n".write(to: busctl, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(busctl.path, 0o755), 0)
        let notMetered = try get([imageURL("tiny.jpg", "v=2")] + args.dropFirst() + ["-o", file("b.jpg").path],
                                 env: ["PATH": bin.path + ":/usr/bin:/bin"])
        assertExit(notMetered, 0)
        XCTAssertTrue(notMetered.stderr.contains("resolved to off: NetworkManager reports the connection as not metered"), notMetered.stderr)
        // Without -v nothing is said.
        let quiet = try get([imageURL("tiny.jpg", "v=3")] + args.dropFirst().filter { $0 != "-v" } + ["-o", file("c.jpg").path],
                            env: ["PATH": bin.path])
        XCTAssertFalse(quiet.stderr.contains("resolved"), quiet.stderr)
    }
}
