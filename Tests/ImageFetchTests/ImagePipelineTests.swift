import XCTest
@testable import ImageFetch

final class ImagePipelineTests: XCTestCase {
    let a = Source.http("https://example.com/a.jpg")
    let low = Source.http("https://example.com/a-small.jpg")
    let b = Source.http("https://mirror.example.com/a.jpg")
    let c = Source.http("https://cdn.example.com/a.jpg")
    let thumb = Processing(width: 100, height: 100, format: .webp)
    let origBytes: [UInt8] = Array("original image bytes".utf8)

    private func request(_ source: Source? = nil, _ processing: Processing = .original, low: Source? = nil,
                         alternatives: [Source] = [], retries: Int = 0, policy: CachePolicy = .normal,
                         keepOriginal: Bool = true) -> ImageRequest {
        var options = FetchOptions()
        options.retry = RetryPolicy(maxRetries: retries, baseDelay: 1, maxDelay: 30)
        options.cachePolicy = policy
        options.keepOriginal = keepOriginal
        return ImageRequest(source: source ?? a, processing: processing, lowDataSource: low,
                            alternativeSources: alternatives, options: options)
    }

    // MARK: - cache

    func testCacheHitMakesNoLoad() async throws {
        let f = PipelineFixture()
        try f.seed(a, bytes: origBytes, expires: FileSystem.now() + 3600)
        let result = try await f.retrieve(request())
        XCTAssertEqual(result.cache, .hit)
        XCTAssertEqual(result.image.bytes, origBytes)
        XCTAssertEqual(result.attempts, 0)
        XCTAssertNotNil(result.path)
        XCTAssertTrue(f.loader.requests.isEmpty)
        XCTAssertTrue(f.processor.inputs.isEmpty)
    }

    func testMissLoadsOnceStoresVariantAndOriginalThenHits() async throws {
        let f = PipelineFixture()
        f.loader.script(a, .ok(origBytes, headers: [("Cache-Control", "max-age=600"), ("ETag", "\"e1\"")]))
        let first = try await f.retrieve(request(a, thumb))
        XCTAssertEqual(first.cache, .miss)
        XCTAssertEqual(first.attempts, 1)
        XCTAssertEqual(first.image.bytes, FakeProcessor.output(origBytes, thumb))
        XCTAssertEqual(first.source, a)
        XCTAssertFalse(first.lowData)
        XCTAssertNil(first.cacheError)
        let variant = try XCTUnwrap(f.cache.lookup(CacheKey(source: a, processing: thumb)))
        XCTAssertEqual(variant.bytes, first.image.bytes)
        XCTAssertEqual(variant.path, first.path)
        XCTAssertEqual(variant.entry.format, "webp")
        XCTAssertEqual(variant.entry.etag, "\"e1\"")
        XCTAssertEqual(variant.entry.expires ?? 0, FileSystem.now() + 600, accuracy: 5)
        let original = try XCTUnwrap(f.cache.lookup(CacheKey(source: a, processing: .original)))
        XCTAssertEqual(original.bytes, origBytes)
        XCTAssertEqual(original.entry.variant, "original")
        XCTAssertEqual([original.entry.width, original.entry.height], [640, 480])

        let second = try await f.retrieve(request(a, thumb))
        XCTAssertEqual(second.cache, .hit)
        XCTAssertEqual(second.image.bytes, first.image.bytes)
        XCTAssertEqual(f.loader.requests.count, 1)
    }

    func testKeepOriginalFalseStoresTheVariantOnly() async throws {
        let f = PipelineFixture()
        _ = try await f.retrieve(request(a, thumb, keepOriginal: false))
        XCTAssertNotNil(f.cache.lookup(CacheKey(source: a, processing: thumb)))
        XCTAssertNil(f.cache.lookup(CacheKey(source: a, processing: .original)))
    }

    func testNewVariantIsDerivedFromTheCachedOriginalWithoutLoading() async throws {
        let f = PipelineFixture()
        try f.seed(a, bytes: origBytes, expires: FileSystem.now() + 3600)
        let result = try await f.retrieve(request(a, thumb))
        XCTAssertEqual(result.cache, .derived)
        XCTAssertEqual(result.image.bytes, FakeProcessor.output(origBytes, thumb))
        XCTAssertEqual(f.processor.inputs, [origBytes])
        XCTAssertTrue(f.loader.requests.isEmpty)
        XCTAssertEqual(f.cache.lookup(CacheKey(source: a, processing: thumb))?.bytes, result.image.bytes)
    }

    func testProcessingFailureIsNotRetriedNorStored() async throws {
        let f = PipelineFixture(processorFailure: .invalidImage("not a decodable image"))
        let failure = try await f.fail(request(retries: 3))
        XCTAssertEqual(failure.error, .invalidImage("not a decodable image"))
        XCTAssertEqual(failure.attempts, 1)
        XCTAssertTrue(f.sleeper.recorded.isEmpty)
        XCTAssertTrue(f.cache.allEntries().isEmpty)
    }

    func testNoStoreResponseIsNotCached() async throws {
        let f = PipelineFixture()
        f.loader.script(a, .ok(origBytes, headers: [("Cache-Control", "no-store")]))
        let result = try await f.retrieve(request())
        XCTAssertEqual(result.image.bytes, origBytes)
        XCTAssertNil(result.path)
        XCTAssertTrue(f.cache.allEntries().isEmpty)
    }

    // MARK: - low-data mode

    func testConstrainedNetworkLoadsTheLowDataSourceOnceWithoutRetrying() async throws {
        let f = PipelineFixture(constrained: true)
        let result = try await f.retrieve(request(a, low: low, retries: 3))
        XCTAssertTrue(result.lowData)
        XCTAssertEqual(result.source, low)
        XCTAssertEqual(result.originalSource, a)
        XCTAssertEqual(result.image.bytes, Array(low.identity.utf8))
        XCTAssertEqual(f.loader.loadedSources, [a, low], "the constrained failure is not retried")
        XCTAssertEqual(f.loader.requests.map(\.allowsConstrainedNetworkAccess), [false, true])
        XCTAssertTrue(f.sleeper.recorded.isEmpty)
        XCTAssertEqual(result.attempts, 1, "the constrained refusal sent nothing: only the fallback's load counts")
    }

    func testFailingFallbackMovesOnToAlternativesAndIsUsedOnce() async throws {
        let f = PipelineFixture(constrained: true)
        f.loader.script(low, .fail(.httpStatus(404, retryAfter: nil)))
        f.loader.script(b, .fail(.constrained)) // a second constrained failure must not take the fallback again
        let result = try await f.retrieve(request(a, low: low, alternatives: [b, c]))
        XCTAssertEqual(result.source, c)
        XCTAssertEqual(result.originalSource, a)
        XCTAssertFalse(result.lowData)
        XCTAssertEqual(f.loader.loadedSources, [a, low, b, c])
        XCTAssertEqual(f.loader.loads(of: low), 1)
    }

    func testAllSourcesFailingListsEachSourceInOrder() async throws {
        let f = PipelineFixture(constrained: true)
        f.loader.script(low, .fail(.httpStatus(404, retryAfter: nil)))
        f.loader.script(b, .fail(.httpStatus(500, retryAfter: nil)))
        f.loader.script(c, .fail(.unreachable("could not resolve host")))
        let failure = try await f.fail(request(a, low: low, alternatives: [b, c]))
        guard case .sourcesExhausted(let failures) = failure.error else { return XCTFail("\(failure.error)") }
        XCTAssertEqual(failures.map(\.source), [a, low, b, c].map(\.description))
        XCTAssertEqual(failures.map(\.error), [.constrained, .httpStatus(404, retryAfter: nil),
                                               .httpStatus(500, retryAfter: nil), .unreachable("could not resolve host")])
        XCTAssertEqual(failures.map(\.attempts), [0, 1, 1, 1], "a constrained refusal is not an attempt")
        XCTAssertEqual(failure.attempts, 3)
        XCTAssertEqual(failure.key, CacheKey(source: a, processing: .original))
    }

    func testWithoutLowDataSourceAConstrainedNetworkChangesNothing() async throws {
        let f = PipelineFixture(constrained: true)
        let result = try await f.retrieve(request(a, alternatives: [b]))
        XCTAssertEqual(result.source, a)
        XCTAssertFalse(result.lowData)
        XCTAssertEqual(f.loader.requests.map(\.allowsConstrainedNetworkAccess), [true])
    }

    func testCachedOriginalIsServedAsIsInLowDataMode() async throws {
        let f = PipelineFixture(constrained: true)
        try f.seed(a, bytes: origBytes, expires: FileSystem.now() + 3600)
        let hit = try await f.retrieve(request(a, low: low))
        XCTAssertEqual(hit.cache, .hit)
        XCTAssertEqual(hit.source, a)
        XCTAssertFalse(hit.lowData)
        XCTAssertEqual(hit.image.bytes, origBytes)
        let derived = try await f.retrieve(request(a, thumb, low: low))
        XCTAssertEqual(derived.cache, .derived)
        XCTAssertEqual(derived.source, a)
        XCTAssertFalse(derived.lowData)
        XCTAssertTrue(f.loader.requests.isEmpty, "no fallback, no load")
    }

    func testOnlyAConstrainedFailureTriggersTheFallback() async throws {
        let f = PipelineFixture()
        f.loader.script(a, .fail(.httpStatus(404, retryAfter: nil)))
        let result = try await f.retrieve(request(a, low: low, alternatives: [b]))
        XCTAssertEqual(result.source, b)
        XCTAssertFalse(result.lowData)
        XCTAssertEqual(f.loader.loadedSources, [a, b])
    }

    // MARK: - retries

    func testServerErrorsAreRetriedUntilSuccess() async throws {
        let f = PipelineFixture()
        f.loader.script(a, .fail(.httpStatus(503, retryAfter: nil)), .fail(.httpStatus(503, retryAfter: nil)), .ok(origBytes))
        let result = try await f.retrieve(request(retries: 3))
        XCTAssertEqual(result.attempts, 3)
        XCTAssertEqual(result.image.bytes, origBytes)
        let waits = f.sleeper.recorded
        XCTAssertEqual(waits.count, 2)
        if waits.count == 2 {
            XCTAssert((0.5...1).contains(waits[0]), "\(waits)")
            XCTAssert((1...2).contains(waits[1]), "\(waits)")
        }
    }

    func testNotFoundIsTriedOnce() async throws {
        let f = PipelineFixture()
        f.loader.script(a, .fail(.httpStatus(404, retryAfter: nil)))
        let failure = try await f.fail(request(retries: 3))
        XCTAssertEqual(failure.error, .httpStatus(404, retryAfter: nil))
        XCTAssertEqual(failure.attempts, 1)
        XCTAssertTrue(f.sleeper.recorded.isEmpty)
    }

    func testRetriesStopAtMaxRetriesAndRetryAfterIsPassedToTheSleeper() async throws {
        let f = PipelineFixture()
        f.loader.script(a, .fail(.httpStatus(503, retryAfter: 7)))
        let failure = try await f.fail(request(retries: 2))
        XCTAssertEqual(failure.error, .httpStatus(503, retryAfter: 7))
        XCTAssertEqual(failure.attempts, 3)
        XCTAssertEqual(f.sleeper.recorded, [7, 7])
    }

    func testARetryAfterBeyondTheRetryTimeLimitFailsAtOnceWithoutSleeping() async throws {
        let f = PipelineFixture()
        f.loader.script(a, .fail(.httpStatus(503, retryAfter: 999_999_999)))
        let failure = try await f.fail(request(retries: 1))
        XCTAssertEqual(failure.error, .retryAfterBeyondLimit(status: 503, wait: 999_999_999, limit: 300))
        XCTAssertEqual(failure.attempts, 1)
        XCTAssertTrue(f.sleeper.recorded.isEmpty, "\(f.sleeper.recorded)")
    }

    func testRetryAfterZeroStillWaitsTheRetryDelay() async throws {
        let f = PipelineFixture()
        f.loader.script(a, .fail(.httpStatus(503, retryAfter: 0)))
        let failure = try await f.fail(request(retries: 3))
        XCTAssertEqual(failure.attempts, 4)
        XCTAssertEqual(f.sleeper.recorded, [1, 1, 1], "attempts stay --retry-delay (1 s) apart")
    }

    // MARK: - cache policies and revalidation

    func testCacheOnlyMissIsNotCachedWithoutLoading() async throws {
        let f = PipelineFixture()
        try f.seed(b, bytes: origBytes, expires: FileSystem.now() - 10)
        for source in [a, b] {
            let failure = try await f.fail(request(source, policy: .cacheOnly))
            if source == b {
                // Cached but expired 10 s ago: said so, and still "not cached" for the exit code.
                guard case .cachedButStale(let ago?) = failure.error else { return XCTFail("\(failure.error)") }
                XCTAssertEqual(ago, 10, accuracy: 5)
                XCTAssertEqual(failure.error.code, "not_cached")
            } else {
                XCTAssertEqual(failure.error, .notCached, "\(source)")
            }
            XCTAssertTrue(failure.error.isNotCached)
        }
        XCTAssertTrue(f.loader.requests.isEmpty)
    }

    func testOfflineServesAnExpiredEntryAsStale() async throws {
        let f = PipelineFixture()
        try f.seed(a, bytes: origBytes, expires: FileSystem.now() - 10)
        let result = try await f.retrieve(request(policy: .offline))
        XCTAssertEqual(result.cache, .stale)
        XCTAssertEqual(result.image.bytes, origBytes)
        XCTAssertTrue(f.loader.requests.isEmpty)
    }

    func testStaleEntryIsRevalidatedWithItsETag() async throws {
        let f = PipelineFixture()
        let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"
        try f.seed(a, bytes: origBytes, expires: FileSystem.now() - 10, etag: "\"v1\"", lastModified: lastModified)
        f.loader.script(a, .notModified(headers: [("Cache-Control", "max-age=3600")]))
        let result = try await f.retrieve(request())
        XCTAssertEqual(f.loader.requests.first?.etag, "\"v1\"")
        XCTAssertEqual(f.loader.requests.first?.lastModified, lastModified)
        XCTAssertEqual(result.cache, .revalidated)
        XCTAssertEqual(result.image.bytes, origBytes)
        XCTAssertTrue(f.processor.inputs.isEmpty)
        let refreshed = try XCTUnwrap(f.cache.lookup(CacheKey(source: a, processing: .original)))
        XCTAssertEqual(refreshed.entry.expires ?? 0, FileSystem.now() + 3600, accuracy: 5)
        XCTAssertEqual(refreshed.entry.etag, "\"v1\"")
        XCTAssertEqual(refreshed.bytes, origBytes)
        let again = try await f.retrieve(request())
        XCTAssertEqual(again.cache, .hit)
        XCTAssertEqual(f.loader.requests.count, 1)
    }

    func testUnreachableNetworkServesTheStaleEntryWithAWarning() async throws {
        let f = PipelineFixture()
        try f.seed(a, bytes: origBytes, expires: FileSystem.now() - 10)
        f.loader.script(a, .fail(.unreachable("could not resolve host")))
        let result = try await f.retrieve(request())
        XCTAssertEqual(result.cache, .stale)
        XCTAssertEqual(result.image.bytes, origBytes)
        XCTAssertEqual(result.warnings.count, 1)
        XCTAssertTrue(result.warnings.first?.contains("unreachable") ?? false, "\(result.warnings)")
        XCTAssertTrue(result.warnings.first?.contains(a.description) ?? false, "\(result.warnings)")
    }

    func testForceRefreshLoadsEvenWhenCached() async throws {
        let f = PipelineFixture()
        try f.seed(a, bytes: origBytes, expires: FileSystem.now() + 3600)
        let newBytes = Array("new bytes".utf8)
        f.loader.script(a, .ok(newBytes))
        let result = try await f.retrieve(request(policy: .forceRefresh))
        XCTAssertEqual(result.cache, .miss)
        XCTAssertEqual(result.image.bytes, newBytes)
        XCTAssertEqual(f.loader.requests.count, 1)
        XCTAssertNil(f.loader.requests.first?.etag)
        XCTAssertEqual(f.cache.lookup(CacheKey(source: a, processing: .original))?.bytes, newBytes)
    }

    // MARK: - decoding while downloading

    func testAStreamedDecodeStandsInForProcessingAndTheOriginalIsStillKept() async throws {
        let f = PipelineFixture(streams: true)
        f.loader.script(a, .ok(origBytes))
        let result = try await f.retrieve(request(a, thumb))
        XCTAssertEqual(result.image.bytes, Array("streamed:".utf8) + origBytes, "the image decoded during the download")
        XCTAssertTrue(f.processor.inputs.isEmpty, "the body was not decoded a second time")
        XCTAssertEqual(f.processor.streamingDecodes.first?.received, origBytes, "the loader fed the decode the whole body")
        let original = try await f.retrieve(request(a, .original, policy: .cacheOnly))
        XCTAssertEqual(original.image.bytes, origBytes, "the original bytes are kept beside the variant")
    }

    func testEachAttemptGetsAFreshDecodeAndAFailedOneIsNotUsed() async throws {
        let f = PipelineFixture(streams: true)
        f.loader.script(a, .fail(.httpStatus(503, retryAfter: nil)), .ok(origBytes))
        let result = try await f.retrieve(request(a, thumb, retries: 1))
        XCTAssertEqual(result.attempts, 2)
        XCTAssertEqual(f.processor.streamingDecodes.map(\.ends), [[0], [1]], "one decode per attempt, the failed one ended incomplete")
        XCTAssertEqual(result.image.bytes, Array("streamed:".utf8) + origBytes)
    }

    func testADeclinedStreamedDecodeFallsBackToProcessingTheBody() async throws {
        let f = PipelineFixture(streams: true, streamsDecline: true)
        f.loader.script(a, .ok(origBytes))
        let result = try await f.retrieve(request(a, thumb))
        XCTAssertEqual(f.processor.streamingDecodes.count, 1, "a decode was fed")
        XCTAssertEqual(f.processor.inputs, [origBytes], "then the body was processed as usual")
        XCTAssertEqual(result.image.bytes, FakeProcessor.output(origBytes, thumb))
    }

    // MARK: - interrupting a batch

    func testCancelAllLoadsReachesTheLoaderThroughCoalescing() {
        let loader = FakeLoader()
        let fixture = PipelineFixture()
        let pipeline = ImagePipeline(cache: fixture.cache, memoryCache: nil, loader: CoalescingLoader(loader),
                                     processor: fixture.processor, pool: ProcessingPool(width: 1), sleeper: fixture.sleeper)
        pipeline.cancelAllLoads()
        XCTAssertEqual(loader.cancelAllCalls, 1, "the coalescing wrapper forwards cancelAll to the real loader")
    }
}
