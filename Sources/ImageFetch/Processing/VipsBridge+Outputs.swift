import CVips

#if canImport(Glibc)
import Glibc
#endif

extension VipsBridge {
    /// A thumbnail with what else the same pass gave (`vips_outputs.c`).
    struct Outputs {
        var image: EncodedImage
        /// The format written: `target`, or the candidate chosen.
        var format: ImageFormat
        /// The thumbnail's pixels fitted inside `Placeholders.side` (asked for and made).
        var pixels: RGBAImage?
    }

    /// The thumbnail `processing` asks for. `candidates` (-f auto): each that suits the picture
    /// encodes the same decoded pixels and the smallest is kept; `pixels`: the thumbnail's small
    /// RGBA copy for placeholders, from the same pixels. Without either, `thumbnail(_:for:...)`.
    static func thumbnail(_ bytes: [UInt8], for processing: Processing, saving target: ImageFormat, allPages: Bool,
                          maxPixels: Int64 = 0, candidates: [AutoFormat.Candidate]?, pixels: Bool) throws(VipsFailure) -> Outputs {
        let list = candidates ?? []
        guard !list.isEmpty || pixels else {
            return Outputs(image: try thumbnail(bytes, for: processing, saving: target, allPages: allPages, maxPixels: maxPixels), format: target)
        }
        let suffixes: [UnsafeMutablePointer<CChar>?] = list.map { strdup($0.format.saveSuffix) }
        defer { suffixes.forEach { free($0) } }
        let alpha: [Int32] = list.map { $0.format.hasAlpha ? ($0.onlyWithTransparency ? 2 : 1) : 0 }
        var extras = ifv_thumb_extras()
        extras.n_candidates = Int32(list.count)
        extras.pixels_side = pixels ? Int32(Placeholders.side) : 0
        let saving = list.first?.format ?? target
        let image: EncodedImage
        if list.isEmpty {
            image = try thumbnail(bytes, for: processing, saving: saving, allPages: allPages, maxPixels: maxPixels, extras: &extras)
        } else {
            // The C strings and flags stay valid for the call (arrays pinned for its duration).
            let cStrings = suffixes.map { UnsafePointer<CChar>($0) }
            image = try cStrings.withUnsafeBufferPointer { (s) throws(VipsFailure) -> EncodedImage in
                try alpha.withUnsafeBufferPointer { (a) throws(VipsFailure) -> EncodedImage in
                    extras.candidates = s.baseAddress
                    extras.candidate_alpha = a.baseAddress
                    return try thumbnail(bytes, for: processing, saving: saving, allPages: allPages, maxPixels: maxPixels, extras: &extras)
                }
            }
        }
        var small: RGBAImage?
        if let data = extras.pixels {
            small = PlaceholderPixels.image(data, width: Int(extras.pixels_width), height: Int(extras.pixels_height), channels: 4)
            ifv_free(data)
        }
        let chosen = list.isEmpty ? target : list[min(max(Int(extras.chosen), 0), list.count - 1)].format
        return Outputs(image: image, format: chosen, pixels: small)
    }
}
