import Foundation

/// An image's format and dimensions, read from its header without imgfetch or libvips.
struct ImageInfo: Equatable, CustomStringConvertible {
    enum Format: String { case jpeg, png, webp, gif, avif }

    var format: Format
    var width: Int
    var height: Int
    /// The data ends the way a complete file of that format ends (JPEG EOI, PNG IEND,
    /// RIFF size, GIF trailer). Always true for AVIF.
    var complete: Bool

    var description: String { "\(format.rawValue) \(width)x\(height)\(complete ? "" : " (incomplete)")" }

    init?(data: Data) {
        let b = [UInt8](data)
        if let info = ImageInfo.png(b) ?? ImageInfo.jpeg(b) ?? ImageInfo.webp(b) ?? ImageInfo.gif(b) ?? ImageInfo.avif(b) {
            self = info
        } else {
            return nil
        }
    }

    init?(file: URL) {
        guard let data = try? Data(contentsOf: file) else { return nil }
        self.init(data: data)
    }

    private init(_ format: Format, _ width: Int, _ height: Int, _ complete: Bool) {
        self.format = format; self.width = width; self.height = height; self.complete = complete
    }

    // MARK: - formats

    private static func be16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
    private static func be32(_ b: [UInt8], _ i: Int) -> Int { be16(b, i) << 16 | be16(b, i + 2) }
    private static func le16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
    private static func le24(_ b: [UInt8], _ i: Int) -> Int { le16(b, i) | Int(b[i + 2]) << 16 }
    private static func le32(_ b: [UInt8], _ i: Int) -> Int { le16(b, i) | le16(b, i + 2) << 16 }
    private static func ascii(_ b: [UInt8], _ i: Int, _ s: String) -> Bool {
        let t = Array(s.utf8)
        return b.count >= i + t.count && Array(b[i..<i + t.count]) == t
    }

    private static func png(_ b: [UInt8]) -> ImageInfo? {
        guard b.count >= 24, b[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
              ascii(b, 12, "IHDR") else { return nil }
        let complete = b.count >= 12 + 33 && ascii(b, b.count - 8, "IEND")
        return ImageInfo(.png, be32(b, 16), be32(b, 20), complete)
    }

    private static func jpeg(_ b: [UInt8]) -> ImageInfo? {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        while i + 1 < b.count {
            guard b[i] == 0xFF else { return nil }
            var marker = b[i + 1]
            while marker == 0xFF, i + 2 < b.count { i += 1; marker = b[i + 1] }
            i += 2
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }  // no length
            guard i + 1 < b.count else { return nil }
            let length = be16(b, i)
            let isSOF = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isSOF {
                guard i + 6 < b.count else { return nil }
                let complete = b.count >= 2 && b[b.count - 2] == 0xFF && b[b.count - 1] == 0xD9
                return ImageInfo(.jpeg, be16(b, i + 5), be16(b, i + 3), complete)
            }
            i += length
        }
        return nil
    }

    private static func webp(_ b: [UInt8]) -> ImageInfo? {
        guard b.count >= 30, ascii(b, 0, "RIFF"), ascii(b, 8, "WEBP") else { return nil }
        let complete = le32(b, 4) + 8 == b.count
        if ascii(b, 12, "VP8 ") {
            return ImageInfo(.webp, le16(b, 26) & 0x3FFF, le16(b, 28) & 0x3FFF, complete)
        }
        if ascii(b, 12, "VP8L") {
            let w = 1 + (Int(b[21]) | (Int(b[22]) & 0x3F) << 8)
            let h = 1 + (Int(b[22]) >> 6 | Int(b[23]) << 2 | (Int(b[24]) & 0x0F) << 10)
            return ImageInfo(.webp, w, h, complete)
        }
        if ascii(b, 12, "VP8X") {
            return ImageInfo(.webp, le24(b, 24) + 1, le24(b, 27) + 1, complete)
        }
        return nil
    }

    private static func gif(_ b: [UInt8]) -> ImageInfo? {
        guard b.count >= 10, ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a") else { return nil }
        return ImageInfo(.gif, le16(b, 6), le16(b, 8), b.last == 0x3B)
    }

    private static func avif(_ b: [UInt8]) -> ImageInfo? {
        guard b.count >= 16, ascii(b, 4, "ftyp"),
              ascii(b, 8, "avif") || ascii(b, 8, "avis") || (ascii(b, 8, "mif1") && b.count > 32) else { return nil }
        // Dimensions live in the first 'ispe' property box: version/flags, width, height.
        var i = 0
        while i + 16 <= b.count {
            if b[i] == 0x69, ascii(b, i, "ispe") {
                return ImageInfo(.avif, be32(b, i + 8), be32(b, i + 12), true)
            }
            i += 1
        }
        return nil
    }
}

/// Builds small valid PNG files (uncompressed deflate), for `data:` URLs, which have to fit in
/// one command-line argument.
enum TinyPNG {
    /// A `width`x`height` RGBA PNG: a horizontal red-to-blue gradient, half transparent.
    static func rgba(width: Int, height: Int) -> Data {
        var raw = [UInt8]()
        for _ in 0..<height {
            raw.append(0)  // filter: none
            for x in 0..<width {
                let t = width > 1 ? x * 255 / (width - 1) : 0
                raw += [UInt8(255 - t), 64, UInt8(t), 128]
            }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, raw.count - offset)
            let last: UInt8 = offset + n == raw.count ? 1 : 0
            zlib += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            zlib += raw[offset..<offset + n]
            offset += n
        } while offset < raw.count
        zlib += be32(adler32(raw))

        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 6, 0, 0, 0])
        png += chunk("IDAT", zlib)
        png += chunk("IEND", [])
        return Data(png)
    }

    private static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    private static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return be32(UInt32(body.count)) + typed + be32(crc32(typed))
    }

    private static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return b << 16 | a
    }

    private static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
