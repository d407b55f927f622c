@testable import ImageFetch
import XCTest

/// The request's network options: one value whose cache-key part and coalescing key are computed
/// beside it; no option keeps today's key; identity only as keyed digests.
final class NetworkOptionsTests: XCTestCase {
    private let url = Source.http("https://example.com/a.jpg")
    private let secretA = CredentialDigest(secret: Array(repeating: 1, count: 32))
    private let secretB = CredentialDigest(secret: Array(repeating: 2, count: 32))

    private func key(_ n: NetworkOptions, _ c: CredentialDigest? = nil, _ s: Source? = nil) throws -> String {
        try CacheKey(source: s ?? url, processing: .original, network: n, credentials: c ?? secretA).rawValue
    }

    func testNoOptionKeepsTodaysKey() throws {
        var quiet = NetworkOptions()
        quiet.tls = TLSOptions(caFile: "/ca.pem", insecure: true)
        quiet.proxy = "http://127.0.0.1:1"
        quiet.limitRate = 10
        XCTAssertEqual(try key(NetworkOptions()), CacheKey(source: url, processing: .original).rawValue)
        XCTAssertEqual(try key(quiet), CacheKey(source: url, processing: .original).rawValue,
                       "TLS, proxy and speed do not change the response: same entry")
    }

    func testEveryShapingOptionChangesTheKey() throws {
        var variants: [NetworkOptions] = []
        for change in [{ (n: inout NetworkOptions) in n.headers = [.init(name: "X-A", value: "1")] },
                       { $0.headers = [.init(name: "X-A", value: "2")] },
                       { $0.headers = [.init(name: "Accept", value: nil)] },
                       { $0.userAgent = "a" }, { $0.referer = "https://r/" }, { $0.cookie = "a=1" },
                       { $0.cookie = "a=2" }, { $0.user = "u:1" }, { $0.user = "u:2" }, { $0.netrcFile = "/n" }] {
            var n = NetworkOptions()
            change(&n)
            variants.append(n)
        }
        let keys = try variants.map { try key($0) } + [try key(NetworkOptions())]
        XCTAssertEqual(Set(keys).count, keys.count, "every option, every value: its own key")
        let loads = variants.map { LoadRequest(source: url, network: $0) }
        XCTAssertEqual(Set(loads).count, variants.count, "and its own download in flight")
    }

    func testIdentityIsKeyedUnderTheSecretAndNeverAppearsRaw() throws {
        var n = NetworkOptions()
        n.headers = [.init(name: "Authorization", value: "Bearer tok3n")]
        n.cookie = "sid=c00kie"
        n.user = "bob:pa55"
        let part = try XCTUnwrap(try n.keyPart(credentials: secretA, source: .http("https://example.com/a.jpg")))
        let encoded = String(decoding: KeyEncoding.bytes(part), as: UTF8.self)
        for secret in ["tok3n", "c00kie", "pa55"] {
            XCTAssertFalse(encoded.contains(secret))
        }
        XCTAssertNotEqual(try key(n, secretA), try key(n, secretB), "keyed: another cache secret, another key")
        XCTAssertTrue(n.carriesIdentity)
    }

    func testFilesAndDataURLsIgnoreNetworkOptions() throws {
        var n = NetworkOptions()
        n.userAgent = "x"
        let file = Source.file(path: "/tmp/a.jpg")
        XCTAssertEqual(try key(n, nil, file), CacheKey(source: file, processing: .original).rawValue)
    }

    func testHeaderParsing() {
        XCTAssertEqual(NetworkOptions.Header(parsing: "X-A:  b c"), .init(name: "X-A", value: "b c"))
        XCTAssertEqual(NetworkOptions.Header(parsing: "Accept:"), .init(name: "Accept", value: nil))
        XCTAssertNil(NetworkOptions.Header(parsing: "no colon"))
        XCTAssertNil(NetworkOptions.Header(parsing: "Bad Name: v"))
        XCTAssertNil(NetworkOptions.Header(parsing: "X: a\r\nInjected: 1"))
    }

    func testTLSPrecedenceIsCurls() {
        let env = ["CURL_CA_BUNDLE": "/bundle", "SSL_CERT_FILE": "/file", "SSL_CERT_DIR": "/dir"]
        let all: (String) -> String? = { env[$0] }
        XCTAssertEqual(TLSOptions.resolve(cacert: "/opt", capath: nil, insecure: false, environment: all).caFile, "/opt")
        XCTAssertEqual(TLSOptions.resolve(cacert: nil, capath: nil, insecure: false, environment: all).caFile, "/bundle")
        let ssl = TLSOptions.resolve(cacert: nil, capath: nil, insecure: false, environment: { $0 == "CURL_CA_BUNDLE" ? nil : env[$0] })
        XCTAssertEqual(ssl.caFile, "/file")
        XCTAssertEqual(ssl.caPath, "/dir")
        let none = TLSOptions.resolve(cacert: nil, capath: nil, insecure: false, environment: { _ in "" })
        XCTAssertNil(none.caFile, "empty variables count as unset: the system bundle")
        XCTAssertEqual(TLSOptions.resolve(cacert: nil, capath: "/p", insecure: false, environment: all).caPath, "/p")
    }

}

final class RedirectHopTests: XCTestCase {
    func testIdentityIsDroppedOnlyForAnotherOrigin() {
        var n = NetworkOptions()
        n.headers = [.init(name: "Authorization", value: "x"), .init(name: "X-A", value: "1")]
        n.cookie = "a=1"
        n.user = "u:p"
        n.netrcFile = "/n"
        let origin = Source.http("https://a.example/x.jpg")
        XCTAssertEqual(n.sent(to: .http("https://A.example:443/y.jpg"), origin: origin), n)
        for other in ["https://b.example/y.jpg", "https://a.example:8443/y.jpg", "http://a.example/y.jpg"] {
            let hop = n.sent(to: .http(other), origin: origin)
            XCTAssertEqual(hop.headers, [], "no -H header with a value follows a redirect to another origin: \(other)")
            XCTAssertNil(hop.cookie)
            XCTAssertNil(hop.user)
            XCTAssertNil(hop.netrcFile)
        }
    }
}
