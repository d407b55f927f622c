/// Content checksums of cache entries: XXH64 (seed 0), written `xxh64:<16 hex>`.
/// Integrity, not security: it detects torn or corrupted files at ~10x the speed of SHA-256
/// (many times faster than a byte-wise hash), which matters on the batch path.
public enum Checksum {
    static let p1: UInt64 = 0x9E37_79B1_85EB_CA87
    static let p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    static let p3: UInt64 = 0x1656_67B1_9E37_79F9
    static let p4: UInt64 = 0x85EB_CA77_C2B2_AE63
    static let p5: UInt64 = 0x27D4_EB2F_1656_67C5

    public static func string(_ bytes: [UInt8]) -> String {
        let h = xxh64(bytes)
        let hex = String(h, radix: 16)
        return "xxh64:" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    @inline(__always) static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }
    @inline(__always) static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 { rotl(acc &+ input &* p2, 31) &* p1 }
    @inline(__always) static func merge(_ acc: UInt64, _ val: UInt64) -> UInt64 { (acc ^ round(0, val)) &* p1 &+ p4 }

    public static func xxh64(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
        // Reads are bounds-checked by construction: every load is at an offset <= count - width.
        bytes.withUnsafeBytes { buf -> UInt64 in
            let n = buf.count
            var i = 0
            @inline(__always) func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: buf.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            @inline(__always) func u32(_ at: Int) -> UInt64 { UInt64(UInt32(littleEndian: buf.loadUnaligned(fromByteOffset: at, as: UInt32.self))) }
            var h: UInt64
            if n >= 32 {
                var v1 = seed &+ p1 &+ p2, v2 = seed &+ p2, v3 = seed, v4 = seed &- p1
                while i + 32 <= n {
                    v1 = round(v1, u64(i)); v2 = round(v2, u64(i + 8)); v3 = round(v3, u64(i + 16)); v4 = round(v4, u64(i + 24))
                    i += 32
                }
                h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
                h = merge(h, v1); h = merge(h, v2); h = merge(h, v3); h = merge(h, v4)
            } else {
                h = seed &+ p5
            }
            h = h &+ UInt64(n)
            while i + 8 <= n { h ^= round(0, u64(i)); h = rotl(h, 27) &* p1 &+ p4; i += 8 }
            if i + 4 <= n { h ^= u32(i) &* p1; h = rotl(h, 23) &* p2 &+ p3; i += 4 }
            while i < n { h ^= UInt64(buf[i]) &* p5; h = rotl(h, 11) &* p1; i += 1 }
            h ^= h >> 33; h = h &* p2; h ^= h >> 29; h = h &* p3; h ^= h >> 32
            return h
        }
    }
}
