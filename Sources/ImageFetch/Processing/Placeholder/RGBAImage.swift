/// 8-bit sRGB pixels with alpha, row by row (4 bytes a pixel, not premultiplied): what the
/// placeholder encoders read.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]

    /// nil when `pixels` is not `width` x `height` x 4 bytes or a side is not positive.
    public init?(width: Int, height: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15, pixels.count == width * height * 4 else { return nil }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// This image box-filtered to fit inside `side` x `side`, keeping its aspect ratio (itself when it
    /// already fits). Each output pixel is the plain mean of the source pixels it covers.
    public func fitting(inside side: Int) -> RGBAImage {
        guard width > side || height > side else { return self }
        let scale = Double(max(width, height)) / Double(side)
        let ow = max(1, min(side, Int((Double(width) / scale).rounded())))
        let oh = max(1, min(side, Int((Double(height) / scale).rounded())))
        var out = [UInt8](repeating: 0, count: ow * oh * 4)
        var sums = [Int](repeating: 0, count: 4)
        for oy in 0..<oh {
            let y0 = oy * height / oh, y1 = max(y0 + 1, (oy + 1) * height / oh)
            for ox in 0..<ow {
                let x0 = ox * width / ow, x1 = max(x0 + 1, (ox + 1) * width / ow)
                for c in 0..<4 { sums[c] = 0 }
                for y in y0..<y1 {
                    var i = (y * width + x0) * 4
                    for _ in x0..<x1 {
                        sums[0] += Int(pixels[i]); sums[1] += Int(pixels[i + 1])
                        sums[2] += Int(pixels[i + 2]); sums[3] += Int(pixels[i + 3])
                        i += 4
                    }
                }
                let n = (y1 - y0) * (x1 - x0)
                let o = (oy * ow + ox) * 4
                for c in 0..<4 { out[o + c] = UInt8((sums[c] + n / 2) / n) }
            }
        }
        return RGBAImage(width: ow, height: oh, pixels: out)!
    }

    /// The mean colour, each pixel weighted by its alpha (black when every pixel is transparent).
    public var averageColor: RGBColor {
        var r = 0, g = 0, b = 0, a = 0
        var i = 0
        while i < pixels.count {
            let alpha = Int(pixels[i + 3])
            r += Int(pixels[i]) * alpha; g += Int(pixels[i + 1]) * alpha; b += Int(pixels[i + 2]) * alpha
            a += alpha
            i += 4
        }
        guard a > 0 else { return .black }
        func mean(_ v: Int) -> UInt8 { UInt8((v + a / 2) / a) }
        return RGBColor(red: mean(r), green: mean(g), blue: mean(b))
    }
}
