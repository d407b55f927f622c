import ArgumentKit
import ImageFetch

/// `--crop`, `--sharpen`, `--upscale`, `--keep-metadata` and `--allow-jxl` (get, prefetch).
extension RequestOptions {
    /// Sets the thumbnail options of `processing` (its box and fit already parsed); `--crop` without
    /// `--fit cover`, and `--fit cover` with one side of `--size`, are usage errors.
    static func parseThumbnailOptions(_ parsed: ParsedCommand, into processing: inout Processing) throws(UsageError) {
        if processing.fit == .cover, (processing.width == nil) != (processing.height == nil) {
            throw UsageError("--fit cover needs both sides of --size (WxH): '--size \(parsed[OptionKeys.size] ?? "")' gives one")
        }
        if let name = try parsed[OptionKeys.crop] {
            guard processing.fit == .cover else { throw UsageError("--crop needs --fit cover (and --size WxH)") }
            processing.crop = Processing.Crop(rawValue: name)
        }
        if parsed[OptionKeys.sharpen] { processing.sharpen = true }
        if parsed[OptionKeys.upscale] { processing.upscale = true }
        if let text = parsed[OptionKeys.keepMetadata] {
            guard let kept = Processing.KeptMetadata(parsing: text) else {
                throw UsageError("invalid value '\(text)' for '--keep-metadata': expected \(Processing.KeptMetadata.allNames.joined(separator: ", ")) or both, comma-separated")
            }
            processing.keepMetadata = kept
        }
    }
}
