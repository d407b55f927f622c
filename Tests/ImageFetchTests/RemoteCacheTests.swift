import XCTest
@testable import ImageFetch

/// The remote cache tier in the pipeline, over an in-memory store and a counting fake loader.
final class RemoteCacheTests: XCTestCase {
    let a = Source.http("https://example.com/a.jpg")
    let thumb = Processing(width: 100, height: 100, format: .webp)
    let bytes: [UInt8] = Array("remote image bytes".utf8)

    private func request(_ source: Source? = nil, _ processing: Processing = .original, policy: CachePolicy = .normal,
                         keepOriginal: Bool = true, network: NetworkOptions = NetworkOptions()) -> ImageRequest {
        var options = FetchOptions()
        options.retry = RetryPolicy(maxRetries: 0, baseDelay: 1, maxDelay: 30)
        options.cachePolicy = policy
        options.keepOriginal = keepOriginal
        return ImageRequest(source: source ?? a, processing: processing, options: options, network: network)
    }

    private func retrieve(_ pipeline: ImagePipeline, _ request: ImageRequest, file: StaticString = #filePath,
                          line: UInt = #line) async throws -> ImageResult {
        switch await pipeline.retrieve(request) {
        case .success(let result): return result
        case .failure(let failure):
            XCTFail("expected success, got \(failure.error)", file: file, line: line)
            throw failure
        }
    }

    // MARK: - lookup

    func testRemoteHitIsServedAndStoredLocallyWithoutTheOrigin() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        _ = seedRemote(store, a, bytes: bytes, expires: FileSystem.now() + 3600)
        let pipeline = f.pipeline(remote: RemoteCache(store: store))
        let result = try await retrieve(pipeline, request())
        XCTAssertEqual(result.cache, .remote)
        XCTAssertEqual(result.image.bytes, bytes)
        XCTAssertTrue(result.warnings.isEmpty)
        XCTAssertTrue(f.loader.requests.isEmpty)
        let local = try XCTUnwrap(f.cache.lookup(CacheKey(source: a, processing: .original)))
        XCTAssertEqual(local.bytes, bytes)
        XCTAssertEqual(result.path, local.path)
        // Now a local hit: the store is not asked again.
        let gets = store.gets.count
        let again = try await retrieve(pipeline, request())
        XCTAssertEqual(again.cache, .hit)
        XCTAssertEqual(store.gets.count, gets)
        XCTAssertTrue(store.puts.isEmpty)
    }

    /// With the format known, the image is asked for beside its metadata, and used only when the
    /// metadata names it; an entry of another format is then fetched by its own name.
    func testTheImageOfAKnownFormatIsFetchedBesideItsMetadata() async throws {
        let store = FakeRemoteStore()
        let seeded = seedRemote(store, a, Processing(width: 100, format: .png), bytes: bytes, expires: FileSystem.now() + 3600)
        let remote = RemoteCache(store: store)
        let key = CacheKey(digest: seeded.key)
        let same = await remote.lookup(key, maxBytes: 1 << 20, expecting: .png)
        XCTAssertEqual(same.hit?.bytes, bytes)
        XCTAssertEqual(Set(store.gets), [seeded.key + ".meta", seeded.key + ".png"], "two requests, at once")
        XCTAssertEqual(store.gets.count, 2)
        let other = await remote.lookup(key, maxBytes: 1 << 20, expecting: .jpeg)
        XCTAssertEqual(other.hit?.bytes, bytes, "the metadata decides which object is the image")
        XCTAssertTrue(store.gets.suffix(3).contains(seeded.key + ".jpg"))
        XCTAssertEqual(store.gets.last, seeded.key + ".png")
        store.set(seeded.key + ".png", Array("tampered bytes of the same size!".utf8))
        let tampered = await remote.lookup(key, maxBytes: 1 << 20, expecting: .png)
        XCTAssertNil(tampered.hit, "the early image is verified as any other")
        XCTAssertNotNil(tampered.warning)
    }

    func testCorruptRemoteImageIsAMissWithAWarningAndTheOriginIsUsed() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        let entry = seedRemote(store, a, bytes: bytes, expires: FileSystem.now() + 3600)
        store.set(entry.key + ".png", Array("remote image bytez".utf8))   // same size, other checksum
        let result = try await retrieve(f.pipeline(remote: RemoteCache(store: store, mode: .read)), request())
        XCTAssertEqual(result.cache, .miss)
        XCTAssertEqual(f.loader.loads(of: a), 1)
        XCTAssertEqual(result.warnings.count, 1)
        let warning = result.warnings.first ?? ""
        XCTAssertTrue(warning.contains(entry.key) && warning.contains("checksum"), warning)
        XCTAssertTrue(warning.contains(store.description))
        XCTAssertEqual(f.cache.lookup(CacheKey(source: a, processing: .original))?.bytes, Array(a.identity.utf8))
    }

    func testRemoteMetaNamingAnotherKeyIsAMiss() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        let other = Source.http("https://example.com/other.jpg")
        let entry = seedRemote(store, other, bytes: bytes, expires: FileSystem.now() + 3600)
        let key = CacheKey(source: a, processing: .original).rawValue
        store.set(key + ".meta", store.objects[entry.key + ".meta"]!)
        store.set(key + ".png", bytes)
        let result = try await retrieve(f.pipeline(remote: RemoteCache(store: store)), request())
        XCTAssertEqual(result.cache, .miss)
        XCTAssertEqual(f.loader.loads(of: a), 1)
        XCTAssertTrue(result.warnings.contains { $0.contains("another key") }, "\(result.warnings)")
    }

    func testAFailingStoreFallsBackToTheOriginWithAWarning() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        store.fail(with: RemoteStoreError("connection refused"))
        let pipeline = f.pipeline(remote: RemoteCache(store: store))
        let result = try await retrieve(pipeline, request())
        XCTAssertEqual(result.cache, .miss)
        XCTAssertEqual(f.loader.loads(of: a), 1)
        XCTAssertTrue(result.warnings.contains { $0.contains("connection refused") }, "\(result.warnings)")
        XCTAssertNil(result.cacheError)
        // The failed upload is a warning of the uploader, never of the image.
        let warnings = await pipeline.remote!.uploader.finish(timeout: 5)
        XCTAssertTrue(warnings.contains { $0.contains("upload failed") }, "\(warnings)")
    }

    func testAStoreThatKeepsFailingIsLeftAloneForTheRestOfTheRun() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        store.fail(with: RemoteStoreError("timed out"))
        let remote = RemoteCache(store: store, mode: .read)
        let pipeline = f.pipeline(remote: remote)
        var warnings: [String] = []
        for i in 0..<6 {
            let result = try await retrieve(pipeline, request(.http("https://example.com/\(i).jpg")))
            XCTAssertEqual(result.cache, .miss)
            warnings += result.warnings
        }
        XCTAssertEqual(store.gets.count, 3)
        XCTAssertEqual(warnings.count, 3)
        XCTAssertTrue(warnings[2].contains("not used for the rest of this run"), warnings[2])
        XCTAssertEqual(f.loader.requests.count, 6)
    }

    func testAFailureCarriesTheTiersWarnings() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        store.fail(with: RemoteStoreError("connection refused"))
        let outcome = await f.pipeline(remote: RemoteCache(store: store)).retrieve(request(policy: .cacheOnly))
        guard case .failure(let failure) = outcome else { return XCTFail("expected not cached") }
        XCTAssertEqual(failure.error, .notCached)
        XCTAssertTrue(failure.warnings.contains { $0.contains("connection refused") }, "\(failure.warnings)")
    }

    func testAPlainRemoteMissHasNoWarning() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        let result = try await retrieve(f.pipeline(remote: RemoteCache(store: store, mode: .read)), request())
        XCTAssertEqual(result.cache, .miss)
        XCTAssertTrue(result.warnings.isEmpty, "\(result.warnings)")
    }

    // MARK: - policies

    func testOfflineAndCacheOnlyUseAFreshRemoteEntryAndNeverTheOrigin() async throws {
        for policy in [CachePolicy.offline, .cacheOnly] {
            let f = PipelineFixture(), store = FakeRemoteStore()
            _ = seedRemote(store, a, bytes: bytes, expires: FileSystem.now() + 3600)
            let result = try await retrieve(f.pipeline(remote: RemoteCache(store: store)), request(policy: policy))
            XCTAssertEqual(result.cache, .remote)
            XCTAssertTrue(f.loader.requests.isEmpty)
        }
    }

    func testOfflineServesAnExpiredRemoteEntryAndCacheOnlyRefusesIt() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        _ = seedRemote(store, a, bytes: bytes, expires: FileSystem.now() - 10)
        let offline = try await retrieve(f.pipeline(remote: RemoteCache(store: store)), request(policy: .offline))
        XCTAssertEqual(offline.cache, .stale)
        XCTAssertEqual(offline.image.bytes, bytes)
        let g = PipelineFixture()
        let failure = await g.pipeline(remote: RemoteCache(store: store)).retrieve(request(policy: .cacheOnly))
        guard case .failure(let error) = failure else { return XCTFail("expected not cached") }
        guard case .cachedButStale(let ago?) = error.error else { return XCTFail("cached (remotely) but stale: \(error.error)") }
        XCTAssertEqual(ago, 10, accuracy: 5)
        XCTAssertTrue(error.error.isNotCached)
        XCTAssertTrue(error.warnings.isEmpty, "a plain remote miss has no warning")
        XCTAssertTrue(f.loader.requests.isEmpty && g.loader.requests.isEmpty)
    }

    func testLowDataModeDoesNotRestrictRemoteReads() async throws {
        let f = PipelineFixture(constrained: true), store = FakeRemoteStore()
        _ = seedRemote(store, a, bytes: bytes, expires: FileSystem.now() + 3600)
        var req = request()
        req.lowDataSource = .http("https://example.com/a-small.jpg")
        let result = try await retrieve(f.pipeline(remote: RemoteCache(store: store)), req)
        XCTAssertEqual(result.cache, .remote)
        XCTAssertEqual(result.source, a)
        XCTAssertFalse(result.lowData)
        XCTAssertTrue(f.loader.requests.isEmpty)
    }

    func testAStaleRemoteEntryIsRevalidatedWithItsValidator() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        _ = seedRemote(store, a, bytes: bytes, expires: FileSystem.now() - 10, etag: "\"r1\"",
                       headers: [("cache-control", "public, max-age=60"), ("etag", "\"r1\"")])
        f.loader.script(a, .notModified(headers: [("Cache-Control", "public, max-age=600")]))
        let remote = RemoteCache(store: store)
        let result = try await retrieve(f.pipeline(remote: remote), request())
        XCTAssertEqual(result.cache, .revalidated)
        XCTAssertEqual(result.image.bytes, bytes)
        XCTAssertEqual(f.loader.requests.map(\.etag), ["\"r1\""])
        let local = try XCTUnwrap(f.cache.lookup(CacheKey(source: a, processing: .original)))
        XCTAssertEqual(local.entry.expires ?? 0, FileSystem.now() + 600, accuracy: 5)
        // The refreshed metadata alone goes back to the store.
        _ = await remote.uploader.finish(timeout: 5)
        XCTAssertEqual(store.puts, [local.entry.key + ".meta"])
        XCTAssertEqual(CacheEntry.decode(store.objects[local.entry.key + ".meta"]!)?.expires ?? 0, FileSystem.now() + 600, accuracy: 5)
    }

    func testForceRefreshSkipsTheRemoteReadButUploads() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        _ = seedRemote(store, a, bytes: bytes, expires: FileSystem.now() + 3600)
        f.loader.script(a, .ok(Array("new".utf8), headers: [("Cache-Control", "max-age=60")]))
        let remote = RemoteCache(store: store)
        let result = try await retrieve(f.pipeline(remote: remote), request(policy: .forceRefresh))
        XCTAssertEqual(result.cache, .miss)
        XCTAssertTrue(store.gets.isEmpty)
        _ = await remote.uploader.finish(timeout: 5)
        XCTAssertEqual(store.objects[result.key.rawValue + ".png"], Array("new".utf8))
    }

    // MARK: - uploads

    private func upload(headers: [(name: String, value: String)], network: NetworkOptions = NetworkOptions(),
                        source: Source? = nil, mode: RemoteCacheMode = .readWrite) async throws -> (FakeRemoteStore, ImageResult) {
        let f = PipelineFixture(), store = FakeRemoteStore()
        let s = source ?? a
        f.loader.script(s, .ok(bytes, headers: headers))
        let remote = RemoteCache(store: store, mode: mode)
        let result = try await retrieve(f.pipeline(remote: remote), request(s, thumb, network: network))
        let warnings = await remote.uploader.finish(timeout: 5)
        XCTAssertTrue(warnings.isEmpty, "\(warnings)")
        return (store, result)
    }

    func testAPublicResponseIsUploadedImageThenMetaOriginalFirst() async throws {
        let (store, result) = try await upload(headers: [("Cache-Control", "public, max-age=600")])
        let original = CacheKey(source: a, processing: .original).rawValue
        let variant = result.key.rawValue
        XCTAssertEqual(store.puts, [original + ".png", original + ".meta", variant + ".webp", variant + ".meta"])
        XCTAssertEqual(store.objects[variant + ".webp"], result.image.bytes)
        // The metadata object is the local `.meta`, byte for byte.
        let meta = try XCTUnwrap(CacheEntry.decode(store.objects[variant + ".meta"]!))
        XCTAssertEqual(meta.checksum, Checksum.string(result.image.bytes))
        XCTAssertEqual(meta.bytes, Int64(result.image.bytes.count))
    }

    func testTheUploadedMetaIsTheLocalMetaByteForByte() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        f.loader.script(a, .ok(bytes, headers: [("Cache-Control", "max-age=600")]))
        let remote = RemoteCache(store: store)
        let result = try await retrieve(f.pipeline(remote: remote), request())
        _ = await remote.uploader.finish(timeout: 5)
        let local = try [UInt8](Data(contentsOf: URL(fileURLWithPath: f.cache.metaPath(result.key.rawValue))))
        XCTAssertEqual(store.objects[result.key.rawValue + ".meta"], local)
    }

    func testPrivateAndNoStoreResponsesAreNeverUploaded() async throws {
        for cc in ["private, max-age=600", "max-age=600, private=\"set-cookie\"", "no-store"] {
            let (store, _) = try await upload(headers: [("Cache-Control", cc)])
            XCTAssertTrue(store.puts.isEmpty, "\(cc): \(store.puts)")
        }
    }

    func testACredentialedRequestIsUploadedOnlyWhenPublic() async throws {
        var cookie = NetworkOptions(); cookie.cookie = "session=abc"
        var user = NetworkOptions(); user.user = "me:secret"
        var auth = NetworkOptions(); auth.headers = [NetworkOptions.Header(name: "Authorization", value: "Bearer x")]
        let userinfo = Source.http("https://me:pw@example.com/a.jpg")
        let cases: [(NetworkOptions, Source?)] = [(cookie, nil), (user, nil), (auth, nil), (NetworkOptions(), userinfo)]
        for (network, source) in cases {
            let (none, _) = try await upload(headers: [("Cache-Control", "max-age=600")], network: network, source: source)
            XCTAssertTrue(none.puts.isEmpty, "\(none.puts)")
            let (some, _) = try await upload(headers: [("Cache-Control", "public, max-age=600")], network: network, source: source)
            XCTAssertEqual(some.puts.count, 4)
            XCTAssertFalse(some.objects.values.contains { String(decoding: $0, as: UTF8.self).contains("secret") || String(decoding: $0, as: UTF8.self).contains(":pw@") })
        }
    }

    func testAnEntryDerivedFromACachedOriginalIsUploaded() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        f.loader.script(a, .ok(bytes, headers: [("Cache-Control", "max-age=600")]))
        let remote = RemoteCache(store: store, mode: .write)
        let pipeline = f.pipeline(remote: remote)
        _ = try await retrieve(pipeline, request())
        let derived = try await retrieve(pipeline, request(a, thumb))
        XCTAssertEqual(derived.cache, .derived)
        _ = await remote.uploader.finish(timeout: 5)
        XCTAssertEqual(store.objects[derived.key.rawValue + ".webp"], derived.image.bytes)
        XCTAssertNotNil(store.objects[derived.key.rawValue + ".meta"])
    }

    func testNoKeepOriginalUploadsTheVariantOnly() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        let remote = RemoteCache(store: store)
        let result = try await retrieve(f.pipeline(remote: remote), request(a, thumb, keepOriginal: false))
        _ = await remote.uploader.finish(timeout: 5)
        XCTAssertEqual(store.puts, [result.key.rawValue + ".webp", result.key.rawValue + ".meta"])
    }

    func testFilesAndDataURLsNeverUseTheTier() async throws {
        let f = PipelineFixture(), store = FakeRemoteStore()
        let remote = RemoteCache(store: store)
        let data = Source.data(mediaType: "image/png", bytes: bytes)
        _ = try await retrieve(f.pipeline(remote: remote), request(data))
        _ = await remote.uploader.finish(timeout: 5)
        XCTAssertTrue(store.gets.isEmpty && store.puts.isEmpty)
    }

    func testModeReadNeverUploadsAndModeWriteNeverReads() async throws {
        let (readStore, _) = try await upload(headers: [("Cache-Control", "public, max-age=600")], mode: .read)
        XCTAssertTrue(readStore.puts.isEmpty)
        XCTAssertFalse(readStore.gets.isEmpty)
        let f = PipelineFixture(), store = FakeRemoteStore()
        _ = seedRemote(store, a, bytes: bytes, expires: FileSystem.now() + 3600)
        let remote = RemoteCache(store: store, mode: .write)
        let result = try await retrieve(f.pipeline(remote: remote), request())
        XCTAssertEqual(result.cache, .miss)
        XCTAssertTrue(store.gets.isEmpty)
        XCTAssertEqual(f.loader.loads(of: a), 1)
    }

    // MARK: - the uploader

    func testFinishAbandonsWhatIsLeftAfterTheTimeout() async throws {
        let uploader = RemoteUploader(capacity: 4, concurrency: 1)
        for _ in 0..<3 { await uploader.enqueue { try? await Task.sleep(nanoseconds: 5_000_000_000); return nil } }
        let started = FileSystem.monotonic()
        let warnings = await uploader.finish(timeout: 0.2)
        XCTAssertLessThan(FileSystem.monotonic() - started, 2)
        XCTAssertEqual(warnings, ["remote cache: 3 uploads abandoned: not finished after 0.2 s (--remote-timeout)"])
        let abandoned = await uploader.abandoned
        XCTAssertEqual(abandoned, 3)
    }

    func testAFullQueueMakesTheEnqueuerWait() async throws {
        let uploader = RemoteUploader(capacity: 2, concurrency: 1)
        let gate = AsyncGate()
        for _ in 0..<3 { await uploader.enqueue { await gate.wait(); return nil } }   // 1 running, 2 waiting
        let fourth = Task { await uploader.enqueue { nil }; return FileSystem.monotonic() }
        try await Task.sleep(nanoseconds: 200_000_000)
        let opened = FileSystem.monotonic()
        await gate.open()
        let enqueued = await fourth.value
        XCTAssertGreaterThanOrEqual(enqueued, opened)
        let warnings = await uploader.finish(timeout: 5)
        XCTAssertTrue(warnings.isEmpty)
        let completed = await uploader.completed
        XCTAssertEqual(completed, 4)
    }

    func testCancelAbandonsAtOnceAndDropsLaterUploads() async throws {
        let uploader = RemoteUploader()
        await uploader.enqueue { try? await Task.sleep(nanoseconds: 5_000_000_000); return nil }
        await uploader.cancel()
        await uploader.enqueue { XCTFail("ran after cancel"); return nil }
        let warnings = await uploader.finish(timeout: 5)
        XCTAssertEqual(warnings, ["remote cache: 1 upload abandoned: interrupted"])
    }
}

/// Opens once; every waiter (before or after) goes on.
actor AsyncGate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }
    func open() {
        isOpen = true
        for w in waiters { w.resume() }
        waiters = []
    }
}
