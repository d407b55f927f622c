/// `--max-output-bytes` (`Processing.maxOutputBytes`): the highest quality not above the one asked
/// for whose output fits the budget, by bisection over 20...quality. The output at the asked
/// quality is tried first, then 20 (below it nothing is tried: over budget, the smallest is kept
/// with a warning), then the middle of what is left, at most six encodes in all.
extension ImageResult {
    /// Takes the fitting's outcome, with the warning of an output over its budget.
    mutating func fitted(_ fitted: SourceReading, budget: Int64?) {
        reading = fitted
        if fitted.overBudget, let budget, let quality = fitted.quality {
            warnings.append("\(originalSource): even quality \(quality) gives \(image.bytes.count) bytes, over --max-output-bytes \(budget): the smallest output was kept")
        }
    }
}

extension ImagePipeline {
    static let budgetFloor = 20
    static let budgetEncodes = 6
    /// libvips' default quality, taken when none is asked for.
    static let defaultQuality = 75

    /// The output that fits (or the smallest), with the quality it was made at. `first` is the
    /// image made at the asked quality; `bytes` the source it was made from.
    func fitting(_ first: ProcessedImage, from bytes: [UInt8], hop: RequestPlan.SourcePlan, options: FetchOptions)
        async throws(FetchError) -> (image: ProcessedImage, reading: SourceReading) {
        let processing = hop.processing
        var reading = SourceReading()
        guard ImageFormat(name: first.format)?.isLossy == true else { return (first, reading) }
        let asked = processing.quality ?? ImagePipeline.defaultQuality
        reading.quality = asked
        guard let budget = processing.maxOutputBytes, Int64(first.bytes.count) > budget else { return (first, reading) }
        var fits: (image: ProcessedImage, quality: Int)?
        var smallest = (image: first, quality: asked)
        var low = ImagePipeline.budgetFloor, high = asked   // low: next to try from below; high: too big
        var encodes = 1
        while encodes < ImagePipeline.budgetEncodes, low < high {
            let quality = fits == nil ? low : (low + high) / 2
            guard quality > (fits?.quality ?? 0), quality < high else { break }
            var p = processing
            p.quality = quality
            let image = try await process(bytes, hop, options: options, processing: p)
            encodes += 1
            if image.bytes.count < smallest.image.bytes.count { smallest = (image, quality) }
            if Int64(image.bytes.count) <= budget {
                fits = (image, quality)
                low = quality + 1
            } else {
                high = quality
                if fits == nil { break }   // not even the floor fits
            }
        }
        if let fits {
            reading.quality = fits.quality
            return (fits.image, reading)
        }
        reading.quality = smallest.quality
        reading.overBudget = true
        return (smallest.image, reading)
    }
}
