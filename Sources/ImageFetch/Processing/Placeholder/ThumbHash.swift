#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ThumbHash (evanw/thumbhash): the encoding of its JavaScript reference `rgbaToThumbHash`, in the
/// same double-precision arithmetic (JavaScript's `Math.round`: halves up).
public enum ThumbHash {
    /// The largest side the reference encoder takes.
    public static let maxSide = 100

    /// The hash bytes of `image`; nil when a side is over `maxSide` (the reference refuses it).
    public static func encode(_ image: RGBAImage) -> [UInt8]? {
        let w = image.width, h = image.height
        guard w <= maxSide, h <= maxSide else { return nil }
        let px = image.pixels
        let n = w * h
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for i in 0..<n {
            let alpha = Double(px[i * 4 + 3]) / 255
            avgR += alpha / 255 * Double(px[i * 4])
            avgG += alpha / 255 * Double(px[i * 4 + 1])
            avgB += alpha / 255 * Double(px[i * 4 + 2])
            avgA += alpha
        }
        if avgA > 0 {
            avgR /= avgA; avgG /= avgA; avgB /= avgA
        }
        let hasAlpha = avgA < Double(n)
        let lLimit = hasAlpha ? 5.0 : 7.0
        let longest = Double(max(w, h))
        let lx = max(1, jsRound(lLimit * Double(w) / longest))
        let ly = max(1, jsRound(lLimit * Double(h) / longest))
        var l = [Double](repeating: 0, count: n), p = l, q = l, a = l
        for i in 0..<n {
            let alpha = Double(px[i * 4 + 3]) / 255
            let r = avgR * (1 - alpha) + alpha / 255 * Double(px[i * 4])
            let g = avgG * (1 - alpha) + alpha / 255 * Double(px[i * 4 + 1])
            let b = avgB * (1 - alpha) + alpha / 255 * Double(px[i * 4 + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }
        // The reference's cosines (the same expressions), computed once per frequency instead of per term.
        let most = max(7, lx, ly)
        let cosX = (0..<most).map { cx in (0..<w).map { x in cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) } }
        let cosY = (0..<most).map { cy in (0..<h).map { y in cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5)) } }
        func encodeChannel(_ channel: [Double], _ nx: Int, _ ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
            var dc = 0.0, ac: [Double] = [], scale = 0.0
            for cy in 0..<ny {
                var cx = 0
                while cx * ny < nx * (ny - cy) {
                    var f = 0.0
                    let fx = cosX[cx]
                    for y in 0..<h {
                        let fy = cosY[cy][y]
                        for x in 0..<w { f += channel[x + y * w] * fx[x] * fy }
                    }
                    f /= Double(n)
                    if cx > 0 || cy > 0 {
                        ac.append(f)
                        scale = max(scale, abs(f))
                    } else {
                        dc = f
                    }
                    cx += 1
                }
            }
            if scale > 0 {
                for i in ac.indices { ac[i] = 0.5 + 0.5 / scale * ac[i] }
            }
            return (dc, ac, scale)
        }
        let lc = encodeChannel(l, max(3, lx), max(3, ly))
        let pc = encodeChannel(p, 3, 3)
        let qc = encodeChannel(q, 3, 3)
        let ac = hasAlpha ? encodeChannel(a, 5, 5) : nil
        let isLandscape = w > h
        let header24 = jsRound(63 * lc.dc) | jsRound(31.5 + 31.5 * pc.dc) << 6 | jsRound(31.5 + 31.5 * qc.dc) << 12
            | jsRound(31 * lc.scale) << 18 | (hasAlpha ? 1 << 23 : 0)
        let header16 = (isLandscape ? ly : lx) | jsRound(63 * pc.scale) << 3 | jsRound(63 * qc.scale) << 9 | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8((header24 >> 8) & 255), UInt8((header24 >> 16) & 255),
                             UInt8(header16 & 255), UInt8((header16 >> 8) & 255)]
        if let ac { hash.append(UInt8(jsRound(15 * ac.dc) | jsRound(15 * ac.scale) << 4)) }
        let start = hash.count
        var index = 0
        for factors in [lc.ac, pc.ac, qc.ac] + (ac.map { [$0.ac] } ?? []) {
            for f in factors {
                let byte = start + index >> 1
                if byte == hash.count { hash.append(0) }
                hash[byte] |= UInt8(jsRound(15 * f) << ((index & 1) << 2))
                index += 1
            }
        }
        return hash
    }

    /// The hash of `image` in base64 (RFC 4648, with padding), as the reference's demos print it.
    public static func encodeBase64(_ image: RGBAImage) -> String? {
        encode(image).map(Base64.encode)
    }

    /// True when `text` could be a base64 ThumbHash (its characters and a length of 5-60 bytes).
    public static func isWellFormed(_ text: String) -> Bool {
        guard let count = Base64.decodedCount(text.utf8), (5...60).contains(count) else { return false }
        return text.utf8.allSatisfy { $0 != 32 && $0 != 10 && $0 != 13 && $0 != 9 && $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "_") }
    }

    /// JavaScript's `Math.round` for the non-negative values the encoder rounds.
    static func jsRound(_ v: Double) -> Int { Int((v + 0.5).rounded(.down)) }
}
