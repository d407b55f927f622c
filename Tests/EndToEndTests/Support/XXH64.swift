/// XXH64 (seed 0) as the cache writes it (`xxh64:<16 hex>`), so a test can plant an entry whose
/// checksum matches. A plain reference implementation, independent of the library's.
enum XXH64 {
    private static let p1: UInt64 = 0x9E37_79B1_85EB_CA87, p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let p3: UInt64 = 0x1656_67B1_9E37_79F9, p4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let p5: UInt64 = 0x27D4_EB2F_1656_67C5

    static func string(_ bytes: [UInt8]) -> String {
        let hex = String(hash(bytes), radix: 16)
        return "xxh64:" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }
    private static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 { rotl(acc &+ input &* p2, 31) &* p1 }
    private static func le(_ b: [UInt8], _ at: Int, _ n: Int) -> UInt64 {
        (0..<n).reduce(UInt64(0)) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) }
    }

    static func hash(_ b: [UInt8]) -> UInt64 {
        let n = b.count
        var i = 0
        var h: UInt64
        if n >= 32 {
            var v = [p1 &+ p2, p2, 0, 0 &- p1]
            while i + 32 <= n {
                for k in 0..<4 { v[k] = round(v[k], le(b, i + 8 * k, 8)) }
                i += 32
            }
            h = rotl(v[0], 1) &+ rotl(v[1], 7) &+ rotl(v[2], 12) &+ rotl(v[3], 18)
            for k in 0..<4 { h = (h ^ round(0, v[k])) &* p1 &+ p4 }
        } else {
            h = p5
        }
        h = h &+ UInt64(n)
        while i + 8 <= n { h ^= round(0, le(b, i, 8)); h = rotl(h, 27) &* p1 &+ p4; i += 8 }
        if i + 4 <= n { h ^= le(b, i, 4) &* p1; h = rotl(h, 23) &* p2 &+ p3; i += 4 }
        while i < n { h ^= UInt64(b[i]) &* p5; h = rotl(h, 11) &* p1; i += 1 }
        h ^= h >> 33; h = h &* p2; h ^= h >> 29; h = h &* p3; h ^= h >> 32
        return h
    }
}
