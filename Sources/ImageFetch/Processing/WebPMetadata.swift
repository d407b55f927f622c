/// libvips 8.14's WebP saver writes an EXIF chunk of its own even when the image has no EXIF field
/// (orientation, resolution, size: nothing of the source, but metadata all the same). This removes
/// the EXIF and XMP chunks from a WebP file and clears their VP8X flags (`keepingEXIF`: the XMP
/// only, the EXIF being what `--keep-metadata copyright` kept); anything it cannot parse is
/// returned unchanged.
enum WebPMetadata {
    static func removingMetadata(_ bytes: [UInt8], keepingEXIF: Bool = false) -> [UInt8] {
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) else { return bytes }
        var out = Array(bytes[0..<12])
        var i = 12
        while i < bytes.count {
            guard i + 8 <= bytes.count else { return bytes }
            let size = Int(bytes[i + 4]) | Int(bytes[i + 5]) << 8 | Int(bytes[i + 6]) << 16 | Int(bytes[i + 7]) << 24
            let end = i + 8 + size + (size & 1)
            guard end <= bytes.count || (i + 8 + size == bytes.count) else { return bytes }
            let chunkEnd = min(end, bytes.count)
            let fourcc = bytes[i..<(i + 4)]
            if (fourcc.elementsEqual("EXIF".utf8) && !keepingEXIF) || fourcc.elementsEqual("XMP ".utf8) {
                i = chunkEnd
                continue
            }
            var chunk = Array(bytes[i..<chunkEnd])
            if fourcc.elementsEqual("VP8X".utf8), chunk.count > 8 { chunk[8] &= ~UInt8((keepingEXIF ? 0 : 0x08) | 0x04) }
            out += chunk
            i = chunkEnd
        }
        let riff = UInt32(out.count - 8)
        out[4] = UInt8(riff & 0xFF); out[5] = UInt8(riff >> 8 & 0xFF); out[6] = UInt8(riff >> 16 & 0xFF); out[7] = UInt8(riff >> 24)
        return out
    }
}
