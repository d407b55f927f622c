import Foundation
import XCTest

/// The disk cache as seen from `get`: hits without the network, `--cache-only`, `--offline`,
/// `--force-refresh`, revalidation, derived variants.
final class CacheTests: E2ETestCase {
    func testSecondGetMakesNoRequestAndGivesSameBytes() throws {
        let url = imageURL("photo.jpg")
        let a = file("a.jpg"), b = file("b.jpg")
        assertExit(try get([url, "-s", "320x320", "-o", a.path]), 0)
        let total = try server.totalRequests()
        XCTAssertGreaterThanOrEqual(total, 1)
        assertExit(try get([url, "-s", "320x320", "-o", b.path]), 0)
        XCTAssertEqual(try server.totalRequests(), total, "a fresh hit makes no request at all")
        XCTAssertEqual(FileManager.default.contents(atPath: a.path), FileManager.default.contents(atPath: b.path),
                       "same bytes from the cache")
        assertImageFile(b, .jpeg, width: 320, height: 213)
    }

    func testSecondGetToStdoutGivesSameBytes() throws {
        let url = imageURL("photo.jpg")
        let first = try get([url, "-s", "200"])
        assertExit(first, 0)
        let second = try get([url, "-s", "200"])
        assertExit(second, 0)
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 1)
        XCTAssertEqual(first.stdout, second.stdout)
        assertImage(second.stdout, .jpeg, width: 200, height: 133)
    }

    func testCacheOnlyMissExits3NamingTheSource() throws {
        let url = imageURL("photo.jpg")
        let r = try get([url, "--cache-only", "-o", file("o.jpg").path])
        assertExit(r, 3)
        assertOneErrorLine(r, containing: url)
        XCTAssertEqual(try server.totalRequests(), 0, "--cache-only never touches the network")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("o.jpg").path), "nothing written on a miss")
    }

    func testCacheOnlyMissJSONCodeNotCached() throws {
        let r = try get([imageURL("photo.jpg"), "--cache-only", "--json", "-o", file("o.jpg").path])
        assertExit(r, 3)
        assertFailureRecord(r, code: "not_cached")
    }

    func testCacheOnlyServesAfterNormalGet() throws {
        let url = imageURL("photo.jpg")
        assertExit(try get([url, "-s", "300", "-o", file("a.jpg").path]), 0)
        let total = try server.totalRequests()
        let out = file("b.jpg")
        let r = try get([url, "-s", "300", "--cache-only", "-o", out.path])
        assertExit(r, 0)
        assertImageFile(out, .jpeg, width: 300, height: 200)
        XCTAssertEqual(try server.totalRequests(), total, "--cache-only made a request")
    }

    func testForceRefreshRequestsEvenWhenCached() throws {
        let url = imageURL("photo.jpg")
        let path = imagePath("photo.jpg")
        assertExit(try get([url, "-s", "300", "-o", file("a.jpg").path]), 0)
        XCTAssertEqual(try server.requestCount(path), 1)
        let out = file("b.jpg")
        let r = try get([url, "-s", "300", "--force-refresh", "-o", out.path])
        assertExit(r, 0)
        XCTAssertEqual(try server.requestCount(path), 2, "--force-refresh goes to the network")
        assertImageFile(out, .jpeg, width: 300, height: 200)
    }

    func testForceRefreshOnMissWorks() throws {
        let r = try get([imageURL("tiny.jpg"), "--force-refresh", "-o", file("a.jpg").path])
        assertExit(r, 0)
        assertImageFile(file("a.jpg"), .jpeg, width: 100, height: 67)
    }

    func testStaleEntryIsRevalidatedWithETag() throws {
        let query = "cc=max-age=0"
        let url = imageURL("photo.jpg", query)
        let path = imagePath("photo.jpg", query)
        assertExit(try get([url, "-s", "300", "-o", file("a.jpg").path]), 0)
        let out = file("b.jpg")
        let r = try get([url, "-s", "300", "--json", "-o", out.path])
        assertExit(r, 0)
        let record = singleRecord(r)
        XCTAssertEqual(record.string("cache"), "revalidated", "\(record)")
        let requests = try server.requests(path)
        XCTAssertEqual(requests.count, 2, "one download, one revalidation")
        let etag = "\"" + sha1Hex(try E2EPaths.fixtureData("photo.jpg")) + "\""
        if requests.count == 2 {
            let h = requests[1].headers
            XCTAssertTrue(h["if-none-match"]?.contains(etag) == true || h["if-modified-since"] != nil,
                          "the revalidation is conditional: \(h)")
        }
        assertImageFile(out, .jpeg, width: 300, height: 200)
    }

    func testExpiredEntryIsRevalidated() throws {
        let query = "expires=now"
        let url = imageURL("tiny.jpg", query)
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        let r = try get([url, "-o", file("b.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(try server.requestCount(imagePath("tiny.jpg", query)), 2, "an expired entry is checked again")
        assertImageFile(file("b.jpg"), .jpeg, width: 100, height: 67)
    }

    func testCacheOnlyDoesNotServeStaleEntries() throws {
        let url = imageURL("tiny.jpg", "cc=max-age=0")
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        let total = try server.totalRequests()
        let r = try get([url, "--cache-only", "-o", file("b.jpg").path])
        assertExit(r, 3)
        XCTAssertEqual(try server.totalRequests(), total)
    }

    func testOfflineServesStaleEntries() throws {
        let url = imageURL("tiny.jpg", "cc=max-age=0")
        assertExit(try get([url, "-o", file("a.jpg").path]), 0)
        let total = try server.totalRequests()
        let r = try get([url, "--offline", "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        XCTAssertEqual(singleRecord(r).string("cache"), "stale")
        XCTAssertEqual(try server.totalRequests(), total, "--offline made a request")
        assertImageFile(file("b.jpg"), .jpeg, width: 100, height: 67)
    }

    func testOfflineMissExits3() throws {
        let url = imageURL("tiny.jpg")
        let r = try get([url, "--offline", "-o", file("a.jpg").path])
        assertExit(r, 3)
        assertOneErrorLine(r, containing: url)
        XCTAssertEqual(try server.totalRequests(), 0)
    }

    func testVariantIsDerivedFromCachedOriginalWithoutNetwork() throws {
        let url = imageURL("photo.jpg")
        assertExit(try get([url, "-s", "600", "-o", file("a.jpg").path]), 0)
        let total = try server.totalRequests()
        let r = try get([url, "-s", "150", "--json", "-o", file("b.jpg").path])
        assertExit(r, 0)
        let record = singleRecord(r)
        XCTAssertEqual(record.string("cache"), "derived", "\(record)")
        XCTAssertEqual(try server.totalRequests(), total, "derived without the network")
        assertImageFile(file("b.jpg"), .jpeg, width: 150, height: 100)
    }

    func testNoKeepOriginalDownloadsAgainForAnotherSize() throws {
        let url = imageURL("photo.jpg")
        assertExit(try get([url, "-s", "600", "--no-keep-original", "-o", file("a.jpg").path]), 0)
        assertExit(try get([url, "-s", "150", "-o", file("b.jpg").path]), 0)
        XCTAssertEqual(try server.requestCount(imagePath("photo.jpg")), 2,
                       "without the original kept, another size needs the network")
    }
}

/// SHA-1 in hex (for the server's ETag), to avoid depending on CryptoKit/Crypto.
func sha1Hex(_ data: Data) -> String {
    var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
    var message = [UInt8](data)
    let bitLength = UInt64(message.count) * 8
    message.append(0x80)
    while message.count % 64 != 56 { message.append(0) }
    for i in (0..<8).reversed() { message.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
    var w = [UInt32](repeating: 0, count: 80)
    for chunk in stride(from: 0, to: message.count, by: 64) {
        for i in 0..<16 {
            let j = chunk + i * 4
            w[i] = UInt32(message[j]) << 24 | UInt32(message[j + 1]) << 16 | UInt32(message[j + 2]) << 8 | UInt32(message[j + 3])
        }
        for i in 16..<80 {
            let x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]
            w[i] = x << 1 | x >> 31
        }
        var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4]
        for i in 0..<80 {
            let (f, k): (UInt32, UInt32)
            switch i {
            case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
            case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
            case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
            default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
            }
            let t = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[i]
            e = d; d = c; c = b << 30 | b >> 2; b = a; a = t
        }
        h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e
    }
    return h.map { String(format: "%08x", $0) }.joined()
}
