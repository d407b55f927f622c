/// Progressive JPEGs read only as far as the thumbnail needs (`--partial-progressive`, low-data
/// mode by default): the download stops at the first scan boundary after which the scans serve the
/// box (`ScanWatcher`, CJpeg's `jpeg_scans.c`), and the image is made from exactly those scans plus
/// an EOI, by the same processing a whole file takes. Such a result is an entry of its own
/// (`EntryKeys.partial`): never the original, never uploaded, and the answer only to requests that
/// may read partially themselves, or that may not use the network (`--offline`, `--cache-only`).
extension ImagePipeline {
    /// The box a download of `source` may stop at; nil: read whole.
    func partialReadBox(_ source: Source, processing: Processing, options: FetchOptions) -> PartialReadBox? {
        guard source.isNetwork, processing.resizes, processing.upscale != true else { return nil }
        switch options.partialProgressive {
        case .never: return nil
        case .lowData: guard network.isConstrained else { return nil }
        case .always: break
        }
        return PartialReadBox(width: processing.width ?? VipsBridge.unconstrained, height: processing.height ?? VipsBridge.unconstrained,
                              cover: processing.coversBox)
    }

    /// The partial entry of the request, when it may answer it: fresh, or any with `--offline`.
    func cachedPartial(_ keys: RequestPlan.EntryKeys, source: Source, processing: Processing, now: Double,
                       options: FetchOptions) -> ImageResult? {
        guard source.isNetwork, processing.resizes, options.partialProgressive != .never,
              options.cachePolicy.avoidsNetwork || partialReadBox(source, processing: processing, options: options) != nil,
              case let key = keys.partial, let cached = cache.lookup(key), cached.entry.partial else { return nil }
        if isFresh(cached.entry, source: source, now: now, options: options) { return makeResult(source, key, cached, .hit) }
        return options.cachePolicy == .offline ? servedOffline(source, key, cached) : nil
    }

    /// A download stopped at a scan boundary: the image of those scans, stored under the partial key.
    func completePartial(_ response: LoadResponse, _ partial: PartialRead, hop: RequestPlan.SourcePlan,
                         options: FetchOptions) async throws(FetchError) -> ImageResult {
        let source = hop.source, keys = hop.keys, processing = hop.processing, key = keys.partial
        let now = FileSystem.now()
        let exchange = StoredResponse(status: response.status, requestTime: response.requestTime, responseTime: response.responseTime,
                                      defaultTTL: options.defaultTTL, headers: response.headers)
        var image = try await process(response.bytes, hop, options: options)
        if !options.placeholders.isEmpty && image.placeholders == nil {
            image.placeholders = Placeholders.decoding(image.bytes, maxPixels: options.maxPixels)
        }
        var reading: SourceReading
        (image, reading) = try await fitting(image, from: response.bytes, hop: hop, options: options)
        reading.partial = true
        reading.sourceBytes = partial.sourceBytes
        var result = ImageResult(source: source, key: key, cache: .miss, image: image, downloadedBytes: partial.downloaded)
        result.fitted(reading, budget: processing.maxOutputBytes)
        // The size from the header; no hash: the download stopped before the source's last byte.
        result.sourceWidth = image.sourceWidth
        result.sourceHeight = image.sourceHeight
        let freshness = exchange.freshness
        guard freshness.storable else { return result }
        var entry = CacheEntry(key: key.rawValue, identity: keys.identity, source: source.description,
                               variant: processing.identifier + "-partial", format: image.format, width: image.width,
                               height: image.height, bytes: Int64(image.bytes.count), checksum: "", created: now,
                               expires: freshness.expires, etag: response.headers.validator("etag"),
                               lastModified: response.headers.validator("last-modified"), mustRevalidate: freshness.mustRevalidate)
        entry.response = exchange
        entry.vary = Vary.names(response.headers).flatMap { Vary.selection(for: $0, saveData: sendsSaveData(options)) }
        entry.shaped = keys.shaped
        entry.placeholders = image.placeholders
        entry.quality = reading.quality
        entry.overBudget = reading.overBudget
        entry.partial = true
        entry.sourceWidth = image.sourceWidth
        entry.sourceHeight = image.sourceHeight
        do {
            let stored = try cache.storeReporting(image.bytes, entry: entry)
            result.path = stored.path
            result.evicted = stored.evicted
        } catch {
            result.cacheError = error
        }
        return result
    }
}
