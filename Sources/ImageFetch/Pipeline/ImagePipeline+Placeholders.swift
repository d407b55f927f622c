/// `--placeholder` on a result whose entry holds none yet (made without them, or by an older
/// version): they are computed from its bytes once and stored in the entry's metadata, so the next
/// hit reads them without decoding.
extension ImagePipeline {
    func withPlaceholders(_ result: ImageResult, _ options: FetchOptions) -> ImageResult {
        guard !options.placeholders.isEmpty, result.image.placeholders == nil else { return result }
        var result = result
        guard let computed = Placeholders.decoding(result.image.bytes, maxPixels: options.maxPixels) else {
            result.warnings.append("no placeholders: the image did not decode")
            return result
        }
        result.image.placeholders = computed
        // Only into the entry that holds these very bytes (another process may have replaced it).
        guard result.path != nil, var cached = cache.lookup(result.key), cached.bytes == result.image.bytes else { return result }
        cached.entry.placeholders = computed
        do {
            try cache.refresh(cached.entry)
            memoryCache?.set(cached, for: result.key)
        } catch {
            result.cacheError = result.cacheError ?? error
        }
        return result
    }
}
