/// The end of a hop that loaded: a revalidated entry refreshed, or the image processed (or taken
/// from the decode that ran during the download) and stored with its original; and a new variant
/// made from an original already kept.
extension ImagePipeline {
    /// Turns a loader response into a stored, processed image (or refreshes a revalidated entry).
    func complete(_ response: LoadResponse, hop: RequestPlan.SourcePlan, stale: CachedImage?, staleKey: CacheKey,
                  options: FetchOptions, streamed: (any StreamingDecode)? = nil,
                  sharing: Sharing = .plain, lowDataOf: LowDataOrigin? = nil) async throws(FetchError) -> ImageResult {
        let source = hop.source
        let now = FileSystem.now()
        var response = response
        if response.responseTime <= 0 { response.responseTime = now }
        if response.requestTime <= 0 || response.requestTime > response.responseTime { response.requestTime = response.responseTime }
        if let partial = response.partial { return try await completePartial(response, partial, hop: hop, options: options) }
        if response.notModified, let stale {
            let entry = revalidated(stale.entry, by: response, defaultTTL: options.defaultTTL, saveData: sendsSaveData(options))
            var result = makeResult(source, staleKey, CachedImage(entry: entry, bytes: stale.bytes, path: stale.path), .revalidated)
            let storing = FileSystem.monotonic()
            do { try cache.refresh(entry) } catch { result.cacheError = error }
            result.timing.store = Timing.since(storing)
            await shareRevalidation(entry, source: source, sharing: sharing)
            return result
        }
        var decoded: ProcessedImage?
        var timing = Timing()
        var started = FileSystem.monotonic()
        if let streamed {
            // Done during the download: only its last steps are left, so no processing slot is taken.
            let bytes = response.bytes
            decoded = await pool.wait { streamed.result(for: bytes) }
            timing.encode = Timing.since(started)
        }
        var image: ProcessedImage
        if let decoded {
            image = decoded
        } else {
            started = FileSystem.monotonic()
            image = try await process(response.bytes, hop, options: options)
            timing.decode = Timing.since(started)
        }
        if !options.placeholders.isEmpty && image.placeholders == nil {
            started = FileSystem.monotonic()
            image.placeholders = Placeholders.decoding(image.bytes, maxPixels: options.maxPixels)
            timing.encode += Timing.since(started)
        }
        var reading = SourceReading()
        if hop.keys.stored(format: image.format, sourceFormat: image.sourceFormat) != hop.keys.original {
            started = FileSystem.monotonic()
            (image, reading) = try await fitting(image, from: response.bytes, hop: hop, options: options)
            timing.encode += Timing.since(started)
        }
        reading.resumedFrom = response.resumedFrom
        reading.digest = response.digest
        var result = await store(image, reading: reading, of: response, hop: hop, now: now, options: options, sharing: sharing,
                                 lowDataOf: lowDataOf)
        result.timing.decode = timing.decode
        result.timing.encode = timing.encode
        return result
    }

    /// Stores a processed image under the key of its format (and its original, when kept), when the
    /// response's rules allow; the result either way. `lowDataOf`: the image is of the low-data
    /// source of that request, which the cache's low-data index then names it for.
    func store(_ image: ProcessedImage, reading: SourceReading, of response: LoadResponse, hop: RequestPlan.SourcePlan, now: Double,
               options: FetchOptions, sharing: Sharing, lowDataOf: LowDataOrigin? = nil) async -> ImageResult {
        let source = hop.source, keys = hop.keys, bytes = response.bytes
        let stored = source.isNetwork ? StoredResponse(status: response.status, requestTime: response.requestTime,
                                                       responseTime: response.responseTime, defaultTTL: options.defaultTTL,
                                                       headers: response.headers) : nil
        let freshness = stored?.freshness ?? Freshness(storable: true, mustRevalidate: false, expires: nil)
        let key = keys.stored(format: image.format, sourceFormat: image.sourceFormat)
        var result = ImageResult(source: source, key: key, cache: .miss, image: image, downloadedBytes: response.downloadedBytes)
        result.fitted(reading, budget: hop.processing.maxOutputBytes)
        result.sourceSHA256 = SHA256.hex(bytes)
        result.sourceWidth = image.sourceWidth
        result.sourceHeight = image.sourceHeight
        guard freshness.storable else { return result }
        let validator = response.fileValidator ?? response.headers.validator("etag")
        var entry = CacheEntry(key: key.rawValue, identity: keys.identity,
                               source: source.description,
                               variant: keys.variant(of: key),
                               format: image.format, width: image.width, height: image.height,
                               bytes: Int64(image.bytes.count), checksum: "", created: now, expires: freshness.expires,
                               etag: validator, lastModified: response.headers.validator("last-modified"),
                               mustRevalidate: freshness.mustRevalidate)
        entry.response = stored
        entry.vary = stored.flatMap { Vary.names($0.headers) }.flatMap { Vary.selection(for: $0, saveData: sendsSaveData(options)) }
        entry.shaped = keys.shaped
        entry.placeholders = image.placeholders
        entry.quality = reading.quality
        entry.overBudget = reading.overBudget
        entry.sourceSHA256 = result.sourceSHA256
        entry.sourceWidth = image.sourceWidth
        entry.sourceHeight = image.sourceHeight
        entry.metadataDropped = image.droppedMetadata
        let original = lowDataOf?.original(format: image.format, sourceFormat: image.sourceFormat)
        entry.lowDataOf = original?.rawValue
        let storing = FileSystem.monotonic()
        do {
            // The original first: when the size limit evicts, the variant asked for is the newest.
            // The output may be the original itself (`-f X` of a source in X, no resize): stored once.
            if options.keepOriginal && key != keys.original {
                var original = entry.describing(keys.original, variant: Processing.original.identifier,
                                                format: image.sourceFormat, width: image.sourceWidth,
                                                height: image.sourceHeight, bytes: bytes.count)
                // Kept only to derive other sizes later: evicted before any output asked for.
                original.kept = .byproduct
                result.evicted.add(try cache.storeReporting(bytes, entry: original).evicted)
                result.keptOriginalBytes = Int64(bytes.count)
                await shareUpload(bytes, entry: original, source: source, sharing: sharing)
            }
            let stored = try cache.storeReporting(image.bytes, entry: entry)
            result.path = stored.path
            result.evicted.add(stored.evicted)
            if let path = result.path { memoryCache?.set(CachedImage(entry: entry, bytes: image.bytes, path: path), for: key) }
            if result.path != nil, let lowDataOf, let original { cache.indexLowData(key, source: lowDataOf.source, for: original) }
        } catch {
            result.cacheError = error
        }
        result.timing.store = Timing.since(storing)
        await shareUpload(image.bytes, entry: entry, source: source, sharing: sharing)
        return result
    }

    /// A new variant from cached original bytes: no network.
    func derive(from original: CachedImage, hop: RequestPlan.SourcePlan, options: FetchOptions,
                sharing: Sharing = .plain) async throws(FetchError) -> ImageResult {
        let source = hop.source, keys = hop.keys
        var started = FileSystem.monotonic()
        var image = try await process(original.bytes, hop, options: options)
        let decoded = Timing.since(started)
        let key = keys.stored(format: image.format, sourceFormat: image.sourceFormat)
        // The output is the original itself: nothing new to store, but it is now asked for.
        if key == keys.original {
            cache.promote(original.entry)
            return makeResult(source, key, original, .hit)
        }
        let reading: SourceReading
        started = FileSystem.monotonic()
        (image, reading) = try await fitting(image, from: original.bytes, hop: hop, options: options)
        let fitted = Timing.since(started)
        var entry = original.entry.describing(key, variant: keys.variant(of: key), format: image.format, width: image.width,
                                              height: image.height, bytes: image.bytes.count)
        entry.placeholders = image.placeholders
        entry.metadataDropped = image.droppedMetadata
        entry.created = FileSystem.now()
        entry.kept = .requested
        entry.quality = reading.quality
        entry.overBudget = reading.overBudget
        // An original stored by an older version has no hash: its bytes are the source's, as downloaded.
        entry.sourceSHA256 = original.entry.sourceSHA256 ?? SHA256.hex(original.bytes)
        entry.sourceWidth = original.entry.sourceWidth ?? original.entry.width
        entry.sourceHeight = original.entry.sourceHeight ?? original.entry.height
        var result = ImageResult(source: source, key: key, cache: .derived, image: image)
        result.fitted(reading, budget: hop.processing.maxOutputBytes)
        result.sourceSHA256 = entry.sourceSHA256
        result.sourceWidth = entry.sourceWidth
        result.sourceHeight = entry.sourceHeight
        result.timing.decode = decoded
        result.timing.encode = fitted
        let storing = FileSystem.monotonic()
        do {
            let stored = try cache.storeReporting(image.bytes, entry: entry)
            result.path = stored.path
            result.evicted = stored.evicted
        } catch { result.cacheError = error }
        result.timing.store = Timing.since(storing)
        await shareUpload(image.bytes, entry: entry, source: source, sharing: sharing)
        return result
    }
}
