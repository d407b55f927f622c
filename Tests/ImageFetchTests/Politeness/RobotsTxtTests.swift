import XCTest
@testable import ImageFetch

/// robots.txt as RFC 9309 reads it (`RobotsTxt`): the RFC's own examples (§5.1, §5.2, §2.2.3),
/// group choice and merging, and hostile bytes.
final class RobotsTxtTests: XCTestCase {
    private func robots(_ text: String, agent: String) -> RobotsTxt { RobotsTxt(Array(text.utf8), agent: agent) }
    private func allowed(_ r: RobotsTxt, _ path: String) -> Bool { r.verdict(path: path) == nil }

    /// RFC 9309 §5.1.
    let simple = """
        User-Agent: *
        Disallow: *.gif$
        Disallow: /example/
        Allow: /publications/

        User-Agent: foobot
        Disallow:/
        Allow:/example/page.html
        Allow:/example/allowed.gif

        User-Agent: barbot
        User-Agent: bazbot
        Disallow: /example/page.html

        User-Agent: quxbot
        """

    func testTheRFCsSimpleExample() {
        let foo = robots(simple, agent: "foobot")
        XCTAssertTrue(allowed(foo, "/example/page.html"))
        XCTAssertTrue(allowed(foo, "/example/allowed.gif"))
        XCTAssertFalse(allowed(foo, "/example/other.html"))
        XCTAssertEqual(foo.verdict(path: "/other")?.text, "disallow: /")
        for agent in ["barbot", "BazBot"] {
            let r = robots(simple, agent: agent)
            XCTAssertFalse(allowed(r, "/example/page.html"), agent)
            XCTAssertTrue(allowed(r, "/example/allowed.gif"), agent)
            XCTAssertTrue(allowed(r, "/x.gif"), agent)
        }
        let qux = robots(simple, agent: "quxbot")
        XCTAssertTrue(qux.ownGroup)
        XCTAssertTrue(allowed(qux, "/example/page.html"), "an empty group allows everything")
        let other = robots(simple, agent: "imgfetch")
        XCTAssertFalse(other.ownGroup)
        XCTAssertFalse(allowed(other, "/a/b.gif"))
        XCTAssertTrue(allowed(other, "/a/b.gif?x"), "$ anchors at the end")
        XCTAssertFalse(allowed(other, "/example/x.png"))
        XCTAssertTrue(allowed(other, "/publications/x.png"))
        XCTAssertTrue(allowed(other, "/x.png"))
    }

    /// RFC 9309 §5.2: the longest match decides.
    func testTheLongestMatchDecides() {
        let r = robots("User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n", agent: "foobot")
        XCTAssertTrue(allowed(r, "/example/page/"))
        XCTAssertTrue(allowed(r, "/example/page/x.gif"))
        XCTAssertEqual(r.verdict(path: "/example/page/disallowed.gif")?.text, "disallow: /example/page/disallowed.gif")
    }

    func testAllowWinsATie() {
        let r = robots("user-agent: *\ndisallow: /page\nallow: /page\n", agent: "imgfetch")
        XCTAssertTrue(allowed(r, "/page.html"))
        let s = robots("user-agent: *\nallow: /page\ndisallow: /page\n", agent: "imgfetch")
        XCTAssertTrue(allowed(s, "/page.html"))
    }

    /// RFC 9309 §2.2.3's table of special characters.
    func testWildcardsAndAnchors() {
        let cases: [(String, [String], [String])] = [
            ("/*", ["/", "/and/everything"], []),
            ("/*.php", ["/index.php", "/filename.php", "/folder/filename.php", "/folder/filename.php?parameters",
                        "/folder/any.php.file.html", "/filename.php/"], ["/", "/windows.PHP"]),
            ("/fish*.php", ["/fish.php", "/fishheads/catfish.php?parameters"], ["/Fish.PHP"]),
            ("/*.php$", ["/filename.php", "/folder/filename.php"], ["/filename.php?parameters", "/filename.php/", "/filename.php5", "/windows.PHP"]),
            ("/fish", ["/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"],
             ["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"]),
            ("/a*b*c$", ["/abc", "/a-b-c", "/abbc", "/abcbc"], ["/abcd", "/acb", "/ab"]),
            ("/a**b", ["/ab", "/axxb/c"], ["/a"]),
            ("/*$", ["/", "/x/y"], []),
            ("/x$", ["/x"], ["/x/", "/xy"]),
        ]
        for (pattern, matching, notMatching) in cases {
            let r = robots("user-agent: *\ndisallow: \(pattern)\n", agent: "imgfetch")
            for path in matching { XCTAssertFalse(allowed(r, path), "\(pattern) should match \(path)") }
            for path in notMatching { XCTAssertTrue(allowed(r, path), "\(pattern) should not match \(path)") }
        }
    }

    /// RFC 9309 §2.2.2: octets compared percent-encoded.
    func testPercentEncodingIsNormalised() {
        let r = robots("user-agent: *\ndisallow: /foo/bar/ツ\ndisallow: /a/%62%61%7a\ndisallow: /x/%e3%83%84\n", agent: "imgfetch")
        XCTAssertFalse(allowed(r, "/foo/bar/%E3%83%84"))
        XCTAssertFalse(allowed(r, "/foo/bar/ツ"))
        XCTAssertFalse(allowed(r, "/a/%62%61%7A"))
        XCTAssertTrue(allowed(r, "/a/baz"), "an encoded octet never matches its decoded form")
        XCTAssertFalse(allowed(r, "/x/ツ"))
    }

    func testGroupsOfOneAgentMergeAndOwnGroupBeatsTheStar() {
        let text = """
            user-agent: imgfetch
            disallow: /a/
            user-agent: *
            disallow: /
            user-agent: ImgFetch/2.0
            disallow: /b/
            crawl-delay: 2.5
            content-usage: train-ai=n
            content-usage: /open/ train-ai=y
            sitemap: https://example.com/sitemap.xml
            """
        let r = robots(text, agent: RobotsTxt.agentToken(userAgent: "imgfetch/1.0 (+https://x)"))
        XCTAssertTrue(r.ownGroup)
        XCTAssertFalse(allowed(r, "/a/1.jpg"))
        XCTAssertFalse(allowed(r, "/b/1.jpg"))
        XCTAssertTrue(allowed(r, "/c/1.jpg"))
        XCTAssertEqual(r.crawlDelay, 2.5)
        XCTAssertEqual(r.usagePreference(path: "/c/1.jpg"), "train-ai=n")
        XCTAssertEqual(r.usagePreference(path: "/open/1.jpg"), "train-ai=y")
        let other = robots(text, agent: "otherbot")
        XCTAssertFalse(allowed(other, "/c/1.jpg"))
        XCTAssertNil(other.crawlDelay)
    }

    func testNoGroupNoFileAndRobotsTxtItselfAreAllowed() {
        XCTAssertTrue(allowed(robots("", agent: "imgfetch"), "/x"))
        XCTAssertTrue(allowed(robots("user-agent: otherbot\ndisallow: /\n", agent: "imgfetch"), "/x"))
        XCTAssertTrue(allowed(robots("user-agent: *\ndisallow: /\n", agent: "imgfetch"), "/robots.txt"))
        XCTAssertTrue(allowed(robots("user-agent: *\ndisallow:\n", agent: "imgfetch"), "/x"), "an empty disallow allows")
        // Comments, CR line ends, a byte order mark, a rule before any user-agent (ignored).
        let r = robots("\u{FEFF}disallow: /early\r\nUser-agent: * # all\r\nDisallow: /p # private\r\n", agent: "imgfetch")
        XCTAssertTrue(allowed(r, "/early"))
        XCTAssertFalse(allowed(r, "/p/1"))
    }

    func testHostileBytesAreBounded() {
        // Rules past 512 KiB are not read; the first 500 KiB are.
        var text = "user-agent: *\ndisallow: /first\n" + String(repeating: "# padding padding padding\n", count: 500 * 1024 / 26)
        text += "disallow: /late\n" + String(repeating: "#", count: 40 * 1024) + "\ndisallow: /beyond\n"
        let r = robots(text, agent: "imgfetch")
        XCTAssertFalse(allowed(r, "/first"))
        XCTAssertFalse(allowed(r, "/late"), "a rule within 500 KiB is read")
        XCTAssertTrue(allowed(r, "/beyond"), "past the parse limit")
        // Many stars against a long path: matching stays bounded (it returns, and is right).
        let stars = "/" + String(repeating: "*a", count: 2000) + "b$"
        let s = robots("user-agent: *\ndisallow: \(stars)\n", agent: "imgfetch")
        XCTAssertTrue(allowed(s, "/" + String(repeating: "a", count: 3000)))
        // Invalid UTF-8, NULs and control bytes neither crash nor make rules.
        var bytes = Array("user-agent: *\ndisallow: /\u{1}\n".utf8)
        bytes += [0xFF, 0xFE, 0x00, 0x3A, 0x0A] + Array("disallow: /z\n".utf8)
        let t = RobotsTxt(bytes, agent: "imgfetch")
        XCTAssertFalse(allowed(t, "/z"))
        XCTAssertFalse(allowed(t, "/%01"))
    }
}
