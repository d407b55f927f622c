import Foundation
import XCTest
@testable import ImageFetch

/// Credentials in sources: one redaction for display, a keyed digest (HMAC-SHA256 under the cache's
/// secret) for identities and keys, and a secret file that is created safely and never trusted blindly.
final class CredentialDigestTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = NSTemporaryDirectory() + "imgfetch-credentials-\(UUID().uuidString)"
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    // MARK: - HMAC-SHA256

    func testHMACMatchesRFC4231() {
        // Test case 1 and 2 of RFC 4231, and case 6 (a key longer than the block is hashed first).
        XCTAssertEqual(SHA256.hexString(SHA256.hmac(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))),
                       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        XCTAssertEqual(SHA256.hexString(SHA256.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        XCTAssertEqual(SHA256.hexString(SHA256.hmac(key: [UInt8](repeating: 0xaa, count: 131),
                                                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))),
                       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    // MARK: - redaction

    func testRedactionHidesPasswordsAndLoneTokens() {
        XCTAssertEqual(Source.redacted("http://user:pass@host/a.jpg"), "http://user:***@host/a.jpg")
        XCTAssertEqual(Source.redacted("https://ghp_token@host:8080/a.jpg?x=1"), "https://***@host:8080/a.jpg?x=1")
        XCTAssertEqual(Source.redacted("http://u:p@ss@host/"), "http://u:***@host/")
        XCTAssertEqual(Source.redacted("http://host/a@b.jpg"), "http://host/a@b.jpg", "an @ in the path is no user information")
        XCTAssertEqual(Source.redacted("http://host/?to=http://u:p@x/"), "http://host/?to=http://u:p@x/")
        XCTAssertEqual(Source.redacted("/plain/path.jpg"), "/plain/path.jpg")
    }

    func testEntryWrittenBeforeRedactionIsReadRedacted() throws {
        let old = CacheEntry(key: String(repeating: "a", count: 64), identity: "http://alice:s3cret@host/a.jpg",
                             source: "http://alice:s3cret@host/a.jpg", variant: "original", format: "jpeg", width: 1, height: 1,
                             bytes: 1, checksum: "xxh64:0", created: 0, expires: nil)
        XCTAssertEqual(CacheEntry.decode(old.encoded())?.source, "http://alice:***@host/a.jpg")
    }

    func testSourceShowsRedactedButSendsWhole() throws {
        let source = try Source(parsing: "http://alice:s3cret@Example.COM/a.jpg")
        XCTAssertEqual(source, .http("http://alice:s3cret@example.com/a.jpg"), "the loader gets the credentials")
        XCTAssertEqual(source.description, "http://alice:***@example.com/a.jpg")
        XCTAssertTrue(source.hasCredentials)
        XCTAssertFalse(try Source(parsing: "http://example.com/a.jpg").hasCredentials)
        for text in ["http://alice:s3cret@bad host/a.jpg", "http://alice:s3cret@host/\u{1}"] {
            XCTAssertThrowsError(try Source(parsing: text)) { error in
                XCTAssertFalse((error as? FetchError)?.message.contains("s3cret") ?? true, "\(error)")
            }
        }
    }

    // MARK: - identities and keys

    func testIdentityKeysCredentialsUnderTheSecret() throws {
        let digest = CredentialDigest(secret: [UInt8](repeating: 7, count: 32))
        let one = try Source(parsing: "http://alice:one@example.com/a.jpg")
        let two = try Source(parsing: "http://alice:two@example.com/a.jpg")
        let identity = try one.identity(credentials: digest)
        XCTAssertFalse(identity.contains("one"), identity)
        XCTAssertFalse(identity.contains(SHA256.hex("alice:one")), "never an unsalted hash")
        XCTAssertTrue(identity.hasPrefix("http://hmac-sha256="), identity)
        XCTAssertTrue(identity.hasSuffix("@example.com/a.jpg"), identity)
        XCTAssertNotEqual(identity, try two.identity(credentials: digest))
        XCTAssertEqual(identity, try one.identity(credentials: CredentialDigest(secret: [UInt8](repeating: 7, count: 32))))
        XCTAssertNotEqual(identity, try one.identity(credentials: CredentialDigest(secret: [UInt8](repeating: 8, count: 32))),
                          "another cache's secret, another identity")
    }

    func testSourcesWithoutCredentialsKeepThePlainKeyAndNeverTouchTheSecret() throws {
        // A secret under a regular file: reading or making it would throw (even as root).
        let untouchable = CredentialDigest(secretFile: "/etc/hostname/v1/secret")
        let source = Source.http("https://example.com/a.jpg")
        XCTAssertEqual(try CacheKey(source: source, processing: .original, credentials: untouchable).rawValue,
                       CacheKey(source: source, processing: .original).rawValue)
        XCTAssertThrowsError(try CacheKey(source: .http("https://u:p@example.com/a.jpg"), processing: .original,
                                          credentials: untouchable))
    }

    // MARK: - the secret file

    func testSecretIsMadeOnce0600AndShared() throws {
        let path = directory + "/v1/secret"
        let first = CredentialDigest(secretFile: path)
        XCTAssertFalse(first.secretExists)
        let a = try first.hex(.userinfo, "alice:one")
        XCTAssertTrue(first.secretExists)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual((attributes[.size] as? NSNumber)?.intValue, 32)
        XCTAssertEqual(try CredentialDigest(secretFile: path).hex(.userinfo, "alice:one"), a, "another process reads the same secret")
        XCTAssertNotEqual(try first.hex(Kind("header"), "alice:one"), a, "kinds are digested apart")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory + "/v1"), ["secret"], "no temporary file left")
    }

    private typealias Kind = CredentialDigest.Kind

    func testUntrustworthySecretsAreErrorsNamingTheFile() throws {
        let path = directory + "/v1/secret"
        try FileManager.default.createDirectory(atPath: directory + "/v1", withIntermediateDirectories: true)
        func assertRefused(_ why: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertThrowsError(try CredentialDigest(secretFile: path).hex(.userinfo, "a:b"), why, file: file, line: line) { error in
                guard case .cacheUnavailable(let message) = error as? FetchError else {
                    return XCTFail("\(why): \(error)", file: file, line: line)
                }
                XCTAssertTrue(message.contains(path), "\(why): \(message)", file: file, line: line)
            }
        }
        _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 1, count: 32), attributes: [.posixPermissions: 0o644])
        assertRefused("readable by others")
        try FileManager.default.removeItem(atPath: path)
        _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 1, count: 31), attributes: [.posixPermissions: 0o600])
        assertRefused("too short")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/etc/hostname")
        assertRefused("a symbolic link")
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        assertRefused("a directory")
    }

    // MARK: - data: URLs are counted, not decoded, before --max-bytes

    func testDataURLCountsMatchDecodedBytes() throws {
        for length in [0, 1, 2, 3, 4, 5, 100, 1001] {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37) }
            let b64 = Data(payload).base64EncodedString()
            for text in [b64, b64.replacingOccurrences(of: "=", with: ""), b64.map { "\($0)\n" }.joined()] {
                guard case .data(let url) = try Source(parsing: "data:image/png;base64," + text) else { return XCTFail() }
                XCTAssertEqual(url.byteCount, length, text)
                XCTAssertEqual(url.decoded(), payload, text)
                XCTAssertEqual(url.sha256, SHA256.hex(payload))
            }
        }
        for bad in ["A", "AAAAA", "AA=A", "AA===", "A*AA"] {
            XCTAssertThrowsError(try Source(parsing: "data:image/png;base64," + bad), bad)
        }
    }

    func testHugeDataURLIsRefusedBeforeAnyWork() async throws {
        let fixture = PipelineFixture()
        // 10 MB of text, 7.5 MB of bytes (kept moderate: the debug build walks it slowly).
        let text = "data:image/jpeg;base64," + String(repeating: "QUJD", count: 2_500_000)
        let source = try Source(parsing: text)
        XCTAssertEqual(source.description, "data:image/jpeg;base64,... (7500000 bytes)")
        var options = FetchOptions()
        options.maxBytes = 1 << 20
        let outcome = await fixture.pipeline.retrieve(ImageRequest(source: source, options: options))
        guard case .failure(let failure) = outcome else { return XCTFail("a 7.5 MB data: URL passed --max-bytes 1M") }
        XCTAssertEqual(failure.error.code, "too_large", "\(failure.error)")
        XCTAssertTrue(fixture.loader.requests.isEmpty, "nothing was loaded")
        XCTAssertTrue(fixture.processor.inputs.isEmpty, "nothing was decoded")
    }
}
