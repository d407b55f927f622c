import Foundation
import ImageFetch
import XCTest

/// `HTTPRemoteStore` over s3:// against moto's S3 server with authentication enforced
/// (MotoS3Server), signed with SigV4 by real libcurl.
final class RemoteStoreS3Tests: XCTestCase {
    private static let keys = ["ab", "cd", "ef", "01", "23"].map { String(repeating: $0, count: 32) }

    private func store(_ moto: MotoS3Server, url: String? = nil, secret: String? = nil) throws -> HTTPRemoteStore {
        let settings = RemoteStoreSettings(url: url ?? "s3://\(moto.bucket)/team/v1", s3Endpoint: moto.endpoint,
                                           accessKeyID: moto.accessKeyID, secretAccessKey: secret ?? moto.secretAccessKey,
                                           region: "us-east-1")
        return try XCTUnwrap(try RemoteStores.make(settings) as? HTTPRemoteStore)
    }

    func testPutGetExistsListRoundTrip() async throws {
        let moto = try MotoS3Server()
        defer { moto.stop() }
        var store = try store(moto)
        XCTAssertEqual(store.description, "s3://\(moto.bucket)/team/v1/")
        let image = Array(try E2EPaths.fixtureData("photo.jpg"))
        let key = RemoteStoreS3Tests.keys[0]

        let missing = try await store.get("\(key).jpg", maxBytes: 1 << 20)
        XCTAssertNil(missing, "a missing object is nil (404)")
        let existsBefore = try await store.exists("\(key).meta")
        XCTAssertFalse(existsBefore)
        let empty = try await store.list(continuation: nil)
        XCTAssertEqual(empty, RemoteListing(names: []))

        try await store.put("\(key).jpg", image, contentType: "image/jpeg")   // > 1 MiB would wait for 100 Continue
        try await store.put("\(key).meta", Array("meta\n".utf8), contentType: "application/octet-stream")
        let got = try await store.get("\(key).jpg", maxBytes: Int64(image.count))
        XCTAssertEqual(got, image)
        let existsAfter = try await store.exists("\(key).meta")
        XCTAssertTrue(existsAfter)

        // Several pages: the continuation token goes back signed (and URL-encoded) as S3 wants it.
        for other in RemoteStoreS3Tests.keys.dropFirst() {
            try await store.put("\(other).meta", [1, 2, 3], contentType: "application/octet-stream")
        }
        store.listPageSize = 2
        var names: [String] = []
        var token: String?
        var pages = 0
        repeat {
            let page = try await store.list(continuation: token)
            names += page.names
            token = page.continuation
            pages += 1
        } while token != nil && pages < 10
        XCTAssertEqual(pages, 3)
        XCTAssertEqual(Set(names), Set(RemoteStoreS3Tests.keys.map { "\($0).meta" } + ["\(key).jpg"]))
        XCTAssertEqual(names.count, 6)
    }

    func testLargePutWaitsForContinueAndRoundTrips() async throws {
        let moto = try MotoS3Server()
        defer { moto.stop() }
        let store = try store(moto)
        let big = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let name = "\(RemoteStoreS3Tests.keys[1]).png"
        try await store.put(name, big, contentType: "image/png")
        let got = try await store.get(name, maxBytes: Int64(big.count))
        XCTAssertEqual(got, big)
    }

    func testWrongSecretIsRefusedAndNeverShown() async throws {
        let moto = try MotoS3Server()
        defer { moto.stop() }
        let good = try store(moto)
        let name = "\(RemoteStoreS3Tests.keys[0]).meta"
        try await good.put(name, [9], contentType: "application/octet-stream")
        let wrongSecret = "wrong-\(moto.secretAccessKey.prefix(20))-secret"
        let bad = try store(moto, secret: wrongSecret)
        XCTAssertFalse("\(bad)".contains(wrongSecret))
        XCTAssertFalse(String(reflecting: bad).contains(wrongSecret))
        do {
            _ = try await bad.get(name, maxBytes: 100)
            XCTFail("a wrong secret was accepted: moto does not enforce authentication")
        } catch {
            XCTAssertEqual(error.status, 403)
            XCTAssertTrue(error.message.contains("SignatureDoesNotMatch"), error.message)
            XCTAssertFalse(error.message.contains(wrongSecret), error.message)
            XCTAssertFalse(error.message.contains(moto.secretAccessKey), error.message)
        }
        do {
            try await bad.put(name, [1], contentType: "x/y")
            XCTFail("a PUT with a wrong secret was accepted")
        } catch {
            XCTAssertEqual(error.status, 403, error.message)
            XCTAssertFalse(error.message.contains(wrongSecret), error.message)
        }
        do {
            _ = try await bad.exists(name)
            XCTFail("a HEAD with a wrong secret was accepted")
        } catch {
            XCTAssertEqual(error.status, 403, error.message)
        }
        do {
            _ = try await bad.list(continuation: nil)
            XCTFail("a listing with a wrong secret was accepted")
        } catch {
            XCTAssertEqual(error.status, 403, error.message)
            XCTAssertFalse(error.message.contains(wrongSecret), error.message)
        }
        // The object is untouched by the refused PUT.
        let still = try await good.get(name, maxBytes: 100)
        XCTAssertEqual(still, [9])
    }

    func testListingKeepsOnlyCacheObjectNamesDirectlyUnderThePrefix() async throws {
        let moto = try MotoS3Server()
        defer { moto.stop() }
        let store = try store(moto)
        let nested = try self.store(moto, url: "s3://\(moto.bucket)/team/v1/sub")
        let other = try self.store(moto, url: "s3://\(moto.bucket)/team/v10")
        let key = RemoteStoreS3Tests.keys[2]
        try await store.put("\(key).meta", [1], contentType: "application/octet-stream")
        try await store.put("notes.txt", [1], contentType: "text/plain")
        try await store.put("\(key.uppercased()).meta", [1], contentType: "application/octet-stream")
        try await store.put("\(key).meta.part", [1], contentType: "application/octet-stream")
        try await nested.put("\(RemoteStoreS3Tests.keys[3]).meta", [1], contentType: "application/octet-stream")
        try await other.put("\(RemoteStoreS3Tests.keys[4]).meta", [1], contentType: "application/octet-stream")
        let listing = try await store.list(continuation: nil)
        XCTAssertEqual(listing.names, ["\(key).meta"])
        XCTAssertNil(listing.continuation)
    }

    func testMissingBucketIsAnError() async throws {
        let moto = try MotoS3Server()
        defer { moto.stop() }
        let store = try store(moto, url: "s3://no-such-bucket/p")
        do {
            _ = try await store.list(continuation: nil)
            XCTFail("a missing bucket listed")
        } catch {
            XCTAssertEqual(error.status, 404, error.message)
            XCTAssertTrue(error.message.contains("NoSuchBucket"), error.message)
        }
    }
}
