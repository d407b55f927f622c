/// The largest image size an AVIF/HEIF file declares (its `ispe` boxes: ISO/IEC 23008-12,
/// meta > iprp > ipco > ispe), read without libheif: libheif 1.15 refuses a header over
/// 16384x16384 before libvips can say how large it is, so the `--max-pixels` check asks this
/// instead. Bounded: boxes are followed by their sizes, at most `maxBoxes`, 4 deep, never past the bytes.
enum HEIFDeclaredSize {
    static let maxBoxes = 4096

    /// The width and height of the largest `ispe`, or nil when the bytes are no ISO-BMFF file with one.
    static func largest(in bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 16, bytes[4...7].elementsEqual("ftyp".utf8) else { return nil }
        var budget = maxBoxes
        var best: (width: Int, height: Int)?
        func walk(_ start: Int, _ end: Int, depth: Int = 0) {
            guard depth < 4 else { return }   // meta > iprp > ipco > ispe
            var i = start
            while i + 8 <= end, budget > 0 {
                budget -= 1
                var size = Int(be32(bytes, i))
                let type = String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self)
                var header = 8
                if size == 1 {   // a 64-bit size follows
                    guard i + 16 <= end else { return }
                    let large = UInt64(be32(bytes, i + 8)) << 32 | UInt64(be32(bytes, i + 12))
                    guard large <= UInt64(end - i) else { return }
                    size = Int(large)
                    header = 16
                } else if size == 0 {
                    size = end - i   // to the end
                }
                guard size >= header, size <= end - i else { return }
                let body = i + header
                switch type {
                case "meta": if body + 4 <= i + size { walk(body + 4, i + size, depth: depth + 1) }   // a full box: version and flags first
                case "iprp", "ipco": walk(body, i + size, depth: depth + 1)
                case "ispe" where body + 12 <= i + size:
                    let w = Int(be32(bytes, body + 4)), h = Int(be32(bytes, body + 8))
                    if best.map({ w * h > $0.width * $0.height }) ?? true { best = (w, h) }
                default: break
                }
                i += size
            }
        }
        walk(0, bytes.count)
        return best
    }

    private static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}
