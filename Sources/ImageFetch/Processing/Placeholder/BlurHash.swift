#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// BlurHash (woltapp/blurhash): the encoding of its C reference encoder (`encode.c`), in the same
/// single-precision arithmetic, so the strings match it character for character. Alpha is ignored,
/// as the reference does.
public enum BlurHash {
    /// The hash of `image` with `x` by `y` components (1-9 each).
    public static func encode(_ image: RGBAImage, componentsX x: Int = 4, componentsY y: Int = 3) -> String {
        precondition((1...9).contains(x) && (1...9).contains(y))
        let w = image.width, h = image.height
        let linear = (0..<256).map { sRGBToLinear(UInt8($0)) }
        // cosf of the reference's double-precision argument, per component and position.
        func cosines(_ n: Int, _ size: Int) -> [[Float]] {
            (0..<n).map { c in (0..<size).map { p in cosf(Float(Double.pi * Double(c) * Double(p) / Double(size))) } }
        }
        let cx = cosines(x, w), cy = cosines(y, h)
        var factors: [(Float, Float, Float)] = []
        image.pixels.withUnsafeBufferPointer { px in
            for j in 0..<y {
                for i in 0..<x {
                    var r: Float = 0, g: Float = 0, b: Float = 0
                    for yy in 0..<h {
                        let fy = cy[j][yy]
                        var o = yy * w * 4
                        for xx in 0..<w {
                            let basis = cx[i][xx] * fy
                            r += basis * linear[Int(px[o])]
                            g += basis * linear[Int(px[o + 1])]
                            b += basis * linear[Int(px[o + 2])]
                            o += 4
                        }
                    }
                    let normalisation: Float = (i == 0 && j == 0) ? 1 : 2
                    let scale = normalisation / Float(w * h)
                    factors.append((r * scale, g * scale, b * scale))
                }
            }
        }
        var hash = base83(x - 1 + (y - 1) * 9, digits: 1)
        let ac = factors.dropFirst()
        var maximum: Float = 1
        if ac.isEmpty {
            hash += base83(0, digits: 1)
        } else {
            let actual = ac.map { max(abs($0.0), abs($0.1), abs($0.2)) }.max()!
            let quantised = Int(fmaxf(0, fminf(82, floorf(actual * 166 - 0.5))))
            maximum = Float(quantised + 1) / 166
            hash += base83(quantised, digits: 1)
        }
        let dc = factors[0]
        hash += base83((linearToSRGB(dc.0) << 16) + (linearToSRGB(dc.1) << 8) + linearToSRGB(dc.2), digits: 4)
        for f in ac {
            func quant(_ v: Float) -> Int { Int(fmaxf(0, fminf(18, floorf(signPow(v / maximum, 0.5) * 9 + 9.5)))) }
            hash += base83(quant(f.0) * 19 * 19 + quant(f.1) * 19 + quant(f.2), digits: 2)
        }
        return hash
    }

    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    /// True when `text` could be a hash of at most 9x9 components (its characters and length).
    public static func isWellFormed(_ text: String) -> Bool {
        let chars = Array(text)
        guard chars.count >= 6, chars.count <= 6 + 2 * 80, chars.allSatisfy(alphabet.contains),
              let size = alphabet.firstIndex(of: chars[0]) else { return false }
        return chars.count == 4 + 2 * (size % 9 + 1) * (size / 9 + 1)
    }

    static func base83(_ value: Int, digits: Int) -> String {
        var out = ""
        var divisor = 1
        for _ in 1..<max(digits, 1) { divisor *= 83 }
        for _ in 0..<digits {
            out.append(alphabet[(value / divisor) % 83])
            divisor /= 83
        }
        return out
    }

    static func sRGBToLinear(_ value: UInt8) -> Float {
        // As the reference: a float divided by 255, then double-precision steps rounded to float.
        let v = Double(Float(value) / 255)
        return v <= 0.04045 ? Float(v / 12.92) : powf(Float((v + 0.055) / 1.055), 2.4)
    }

    static func linearToSRGB(_ value: Float) -> Int {
        let v = fmaxf(0, fminf(1, value))
        // The reference computes these in double precision (its constants are doubles) and truncates.
        if v <= 0.0031308 { return Int(Double(v) * 12.92 * 255 + 0.5) }
        return Int((1.055 * Double(powf(v, 1 / 2.4)) - 0.055) * 255 + 0.5)
    }

    static func signPow(_ value: Float, _ exp: Float) -> Float {
        copysignf(powf(abs(value), exp), value)
    }
}
