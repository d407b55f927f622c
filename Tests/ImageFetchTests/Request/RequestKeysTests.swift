import XCTest
@testable import ImageFetch

/// Every stored property of the request types is either shown here to change the cache key, or
/// named in `RequestPlan.notInCacheKey`; and every one changes the retrieval key. A property added
/// without a decision fails `testEveryStoredPropertyIsClassified`.
final class RequestKeysTests: XCTestCase {
    typealias Change = @Sendable (inout ImageRequest) -> Void

    /// One change of each stored property, by its path from `ImageRequest`.
    static let changes: [String: Change] = [
        "source": { $0.source = .http("https://example.com/other.jpg") },
        "processing.width": { $0.processing.width = 320 },
        "processing.height": { $0.processing.height = 240 },
        "processing.fit": { $0.processing.width = 10; $0.processing.height = 10; $0.processing.fit = .cover },
        "processing.format": { $0.processing.format = .webp },
        "processing.quality": { $0.processing.width = 10; $0.processing.quality = 50 },
        "processing.linear": { $0.processing.width = 10; $0.processing.linear = true },
        "processing.background": { $0.processing.width = 10; $0.processing.background = .black },
        "processing.accept": { $0.processing.width = 10; $0.processing.format = .auto; $0.processing.accept = [.avif, .webp] },
        "processing.crop": { $0.processing.width = 10; $0.processing.height = 10; $0.processing.fit = .cover; $0.processing.crop = .attention },
        "processing.sharpen": { $0.processing.width = 10; $0.processing.sharpen = true },
        "processing.upscale": { $0.processing.width = 10; $0.processing.upscale = true },
        "processing.keepMetadata": { $0.processing.width = 10; $0.processing.keepMetadata = .init(copyright: true) },
        "lowDataSource": { $0.lowDataSource = .http("https://example.com/small.jpg") },
        "alternativeSources": { $0.alternativeSources = [.http("https://example.com/alt.jpg")] },
        "options.maxBytes": { $0.options.maxBytes = 1 },
        "options.maxPixels": { $0.options.maxPixels = 1 },
        "options.connectTimeout": { $0.options.connectTimeout = 1 },
        "options.timeout": { $0.options.timeout = 1 },
        "options.retry.maxRetries": { $0.options.retry.maxRetries = 3 },
        "options.retry.baseDelay": { $0.options.retry.baseDelay = 3 },
        "options.retry.maxDelay": { $0.options.retry.maxDelay = 3 },
        "options.retry.maxTime": { $0.options.retry.maxTime = nil },
        "options.cachePolicy": { $0.options.cachePolicy = .offline },
        "options.defaultTTL": { $0.options.defaultTTL = 1 },
        "options.failureTTL": { $0.options.failureTTL = 1 },
        "options.retryFailed": { $0.options.retryFailed = true },
        "options.keepOriginal": { $0.options.keepOriginal = false },
        "options.serveStaleWhileRevalidating": { $0.options.serveStaleWhileRevalidating = false },
        "options.maxRedirects": { $0.options.maxRedirects = 0 },
        "options.placeholders": { $0.options.placeholders = [.blurhash] },
        "options.saveData": { $0.options.saveData = false },
        "options.partialProgressive": { $0.options.partialProgressive = .always },
        "processing.maxOutputBytes": { $0.processing.width = 10; $0.processing.maxOutputBytes = 20_480 },
        "network.headers": { $0.network.headers = [.init(name: "X-A", value: "1")] },
        "network.userAgent": { $0.network.userAgent = "Bot/1" },
        "network.referer": { $0.network.referer = "https://r.example/" },
        "network.cookie": { $0.network.cookie = "k=v" },
        "network.cookieFile": { $0.network.cookieFile = try! CookieFile(parsing: Array("example.com\tFALSE\t/\tFALSE\t0\tk\tv\n".utf8)) },
        "network.cookieJar": { $0.network.cookieJar = "/jar" },
        "network.user": { $0.network.user = "u:p" },
        "network.netrcFile": { $0.network.netrcFile = "/n" },
        "network.tls.caFile": { $0.network.tls.caFile = "/ca.pem" },
        "network.tls.caPath": { $0.network.tls.caPath = "/ca" },
        "network.tls.insecure": { $0.network.tls.insecure = true },
        "network.tls.origin": { $0.network.tls.origin = "CURL_CA_BUNDLE" },
        "network.proxy": { $0.network.proxy = "http://proxy:3128" },
        "network.noProxy": { $0.network.noProxy = "*" },
        "network.limitRate": { $0.network.limitRate = 1000 },
        "network.speedLimit": { $0.network.speedLimit = 10 },
        "network.speedTime": { $0.network.speedTime = 10 },
        "network.deniedAddresses": { $0.network.deniedAddresses = [AddressRange(parsing: "10.0.0.0/8")!] },
        "network.denyPrivateAddresses": { $0.network.denyPrivateAddresses = true },
        "network.resolve": { $0.network.resolve = ["example.com:443:127.0.0.1"] },
        "network.locationTrusted": { $0.network.locationTrusted = true },
    ]

    let base = ImageRequest(source: .http("https://example.com/a.jpg"))
    let credentials = CredentialDigest(secret: [UInt8](repeating: 3, count: 32))

    /// The stored properties of a value and of the request types inside it, as paths.
    static func paths(of value: Any, prefix: String = "") -> [String] {
        let nested: Set<String> = ["Processing", "FetchOptions", "RetryPolicy", "NetworkOptions", "TLSOptions"]
        var out: [String] = []
        for child in Mirror(reflecting: value).children {
            guard var label = child.label else { continue }
            if label.hasPrefix("_") { label.removeFirst() }   // a property wrapper's storage
            let path = prefix + label
            if nested.contains(String(describing: type(of: child.value))) {
                out += paths(of: child.value, prefix: path + ".")
            } else {
                out.append(path)
            }
        }
        return out
    }

    func testEveryStoredPropertyIsClassified() {
        let stored = Set(Self.paths(of: base))
        XCTAssertEqual(stored, Set(Self.changes.keys),
                       "a stored property of the request types without a change here: decide whether it counts in the cache key")
        XCTAssertTrue(RequestPlan.notInCacheKey.isSubset(of: stored), "an exclusion that names no property")
    }

    func testTheCacheKeyCountsEveryPropertyButTheNamedExclusions() throws {
        let plain = try RequestPlan(base, credentials: credentials).keys(for: base.source).output
        for (path, change) in Self.changes.sorted(by: { $0.key < $1.key }) {
            var request = base
            change(&request)
            let plan = RequestPlan(request, credentials: credentials)
            let key = try plan.keys(for: request.source).output
            if RequestPlan.notInCacheKey.contains(path) {
                XCTAssertEqual(key, plain, "\(path) is named as not in the cache key, yet changes it")
            } else {
                XCTAssertNotEqual(key, plain, "\(path) changes the output: it must change the cache key")
            }
            if RequestPlan.notCounted.contains(path) {
                XCTAssertEqual(plan.retrievalKey, base, "\(path) is named as in no key")
            } else {
                XCTAssertNotEqual(plan.retrievalKey, base, "\(path) must change the retrieval key")
            }
        }
    }

    func testOneOutputHasOneKeyWhateverItsSpelling() throws {
        func key(_ p: Processing) throws -> CacheKey {
            try RequestPlan(ImageRequest(source: base.source, processing: p), credentials: credentials).keys(for: base.source).output
        }
        XCTAssertEqual(try key(Processing(width: 64, format: .png, quality: 80)), try key(Processing(width: 64, format: .png)),
                       "a quality means nothing to PNG")
        XCTAssertEqual(try key(Processing(width: 64, fit: .cover)), try key(Processing(width: 64)),
                       "cover without both sides is inside")
        XCTAssertEqual(try key(Processing(quality: 50, linear: true)), try key(.original), "no resize, no format: the source")
        let jpeg = try RequestPlan(ImageRequest(source: base.source, processing: Processing(width: 64, format: .jpeg)),
                                   credentials: credentials).keys(for: base.source)
        XCTAssertEqual(jpeg.asSource, try key(Processing(width: 64)), "-f jpeg -s 64 looks up -s 64 of a JPEG source")
        XCTAssertEqual(jpeg.stored(format: "jpeg", sourceFormat: "jpeg"), jpeg.asSource)
        XCTAssertEqual(jpeg.stored(format: "jpeg", sourceFormat: "png"), jpeg.output, "a PNG's JPEG thumbnail is its own entry")
        let handOut = try RequestPlan(ImageRequest(source: base.source, processing: Processing(format: .jpeg)),
                                      credentials: credentials).keys(for: base.source)
        XCTAssertEqual(handOut.asSource, handOut.original, "-f jpeg without a resize of a JPEG is the original")
        let reencoded = try RequestPlan(ImageRequest(source: base.source, processing: Processing(format: .jpeg, quality: 50)),
                                        credentials: credentials).keys(for: base.source)
        XCTAssertNil(reencoded.asSource, "a re-encode at a quality is not the source handed out")
    }

    /// The plan gives each source its keys, its route and its load request: the request's own once,
    /// with the request; a redirect hop's with the identity its origin allows.
    func testThePlanGivesEachSourceItsKeysRouteAndLoadRequest() throws {
        var request = ImageRequest(source: base.source, processing: Processing(width: 64))
        request.options.maxBytes = 1234
        request.network.headers = [NetworkOptions.Header(name: "Authorization", value: "Bearer x")]
        let plan = RequestPlan(request, credentials: credentials)
        let own = try plan.ownSource()
        XCTAssertEqual(own.keys.output, try plan.keys(for: base.source).output)
        XCTAssertEqual(own.route, .jpegThumbnail(streamed: true), "an http JPEG thumbnail decodes while it downloads")
        XCTAssertEqual(own.load.maxBytes, 1234)
        XCTAssertEqual(own.load.source, base.source)
        XCTAssertTrue(own.load.errorResponses)
        let file = try plan.plan(for: .file(path: "/tmp/a.jpg"))
        XCTAssertEqual(file.route, .jpegThumbnail(streamed: false), "a local file is read at once")
        XCTAssertFalse(file.load.errorResponses)
        let hop = try plan.plan(for: .http("https://elsewhere.example/a.jpg"), origin: base.source)
        XCTAssertNotEqual(hop.load.network, own.load.network, "a header set for the origin is not sent to another host")
        XCTAssertEqual(try RequestPlan(ImageRequest(source: base.source), credentials: credentials).ownSource().route, .handOut)
        let huge = Source.data(DataURL(mediaType: "image/png", bytes: [UInt8](repeating: 0, count: 2000)))
        var tooLarge = ImageRequest(source: huge)
        tooLarge.options.maxBytes = 1000
        XCTAssertThrowsError(try RequestPlan(tooLarge, credentials: credentials).ownSource(), "refused before any work")
        XCTAssertNil(RequestPlan(tooLarge, credentials: credentials).failureKey)
    }

    /// An on/off processing option that acts with a resize is one field and its row in
    /// `Processing.resizeSwitches`: normalised and named in the variant from there.
    func testEveryProcessingSwitchHasItsRow() {
        let switches = Mirror(reflecting: Processing()).children.filter { type(of: $0.value) == Bool?.self }.compactMap(\.label)
        XCTAssertEqual(Set(switches), Set(Processing.resizeSwitches.map(\.name)))
        var p = Processing(width: 64)
        p.sharpen = false
        XCTAssertNil(p.normalized.sharpen, "off is nil: older keys stay")
        p.sharpen = true
        XCTAssertEqual(p.normalized.identifier, "w64-inside-original-sharpen")
        XCTAssertNil(Processing(format: .png).normalized.upscale)
    }

    func testTheDownloadKeyLeavesOutOnlyTheBodyTap() {
        var a = LoadRequest(source: base.source)
        var b = a
        var context = 0
        withUnsafeMutablePointer(to: &context) { pointer in
            a.bodyTap = BodyTap(context: UnsafeMutableRawPointer(pointer), onData: { _, _, _ in }, onEnd: { _, _ in })
        }
        XCTAssertEqual(a, b, "the body tap does not count")
        b.maxBytes = 1
        XCTAssertNotEqual(a, b)
        b = a
        b.etag = "\"x\""
        XCTAssertNotEqual(a, b)
        b = a
        b.network.tls.insecure = true
        XCTAssertNotEqual(a, b, "how the bytes travel counts for sharing a download")
    }
}
