import CCrypto

/// SHA-256 (FIPS 180-4), used for cache keys (file names), entry checksums, sources' digests and list
/// digests. What is small (under `libraryThreshold`: keys, names, tokens) is hashed here, without
/// loading anything, so a cache hit never loads libcrypto; a larger input goes to libcrypto
/// (`CCrypto`, dlopen'ed), whose SHA extensions or AVX2 code take ~15x fewer instructions a byte.
/// Both give the same digest (SHA256Tests); without libcrypto, everything is hashed here.
public struct SHA256: Sendable {
    /// Bytes held, not hashed yet, until the input is known to be small (hashed here at `finalize`)
    /// or reaches this size (handed to libcrypto).
    static let libraryThreshold = 64 << 10
    private enum Engine: Sendable { case undecided, swift, library(icr_sha256_ctx) }
    private var engine = Engine.undecided
    private var held: [UInt8] = []
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    public init() {}

    /// Hashes everything here, never in libcrypto (the tests compare the two).
    init(hashingHere: Bool) { if hashingHere { engine = .swift } }

    /// Whether libcrypto hashes this input (it reached `libraryThreshold` and libcrypto loaded).
    var hashesInLibrary: Bool { if case .library = engine { true } else { false } }

    public mutating func update(_ bytes: ArraySlice<UInt8>) {
        switch engine {
        case .swift: hashHere(bytes)
        case .library(var context):
            let ok = bytes.withUnsafeBytes { icr_sha256_update(&context, $0.baseAddress, $0.count) } == 1
            engine = .library(context)
            precondition(ok, "libcrypto's SHA256_Update failed")
        case .undecided:
            if held.count + bytes.count < SHA256.libraryThreshold { held.append(contentsOf: bytes); return }
            var context = icr_sha256_ctx()
            if icr_sha256_init(&context) == 1 {
                engine = .library(context)
            } else {
                engine = .swift
            }
            let first = held
            held = []
            if !first.isEmpty { update(first[...]) }
            update(bytes)
        }
    }

    /// The Swift compression of `bytes`, after what `buffer` holds.
    private mutating func hashHere(_ bytes: ArraySlice<UInt8>) {
        length &+= UInt64(bytes.count)
        var start = bytes.startIndex
        if !buffer.isEmpty {
            let take = min(64 - buffer.count, bytes.count)
            buffer.append(contentsOf: bytes[start..<start + take])
            start += take
            if buffer.count == 64 { compress(buffer[...]); buffer.removeAll(keepingCapacity: true) }
        }
        while bytes.endIndex - start >= 64 {
            compress(bytes[start..<start + 64])
            start += 64
        }
        buffer.append(contentsOf: bytes[start...])
    }

    public mutating func update(_ bytes: [UInt8]) { update(bytes[...]) }
    public mutating func update(_ string: String) { update(Array(string.utf8)) }

    public mutating func finalize() -> [UInt8] {
        switch engine {
        case .library(var context):
            var digest = [UInt8](repeating: 0, count: 32)
            let ok = icr_sha256_final(&context, &digest) == 1
            precondition(ok, "libcrypto's SHA256_Final failed")
            engine = .undecided
            return digest
        case .undecided:
            engine = .swift
            let first = held
            held = []
            hashHere(first[...])
        case .swift: break
        }
        let bitLength = length &* 8
        var tail = buffer
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for i in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        var offset = 0
        while offset < tail.count { compress(tail[offset..<offset + 64]); offset += 64 }
        buffer.removeAll()
        let s = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        return s.flatMap { v in [UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }
    }

    private mutating func compress(_ block: ArraySlice<UInt8>) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            compress(block, w)
        }
    }

    private mutating func compress(_ block: ArraySlice<UInt8>, _ w: UnsafeMutableBufferPointer<UInt32>) {
        let base = block.startIndex
        for i in 0..<16 {
            let j = base + i * 4
            w[i] = UInt32(block[j]) << 24 | UInt32(block[j + 1]) << 16 | UInt32(block[j + 2]) << 8 | UInt32(block[j + 3])
        }
        for i in 16..<64 {
            let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
            let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = state
        for i in 0..<64 {
            let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            let ch = (e & f) ^ (~e & g)
            let t1 = h &+ s1 &+ ch &+ SHA256.k[i] &+ w[i]
            let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            let maj = (a & b) ^ (a & c) ^ (b & c)
            let t2 = s0 &+ maj
            h = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
    }

    @inline(__always) private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    /// The lowercase hex digest of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        var h = SHA256()
        h.update(bytes)
        return hexString(h.finalize())
    }

    public static func hex(_ string: String) -> String { hex(Array(string.utf8)) }

    public static func hexString(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(digest.count * 2)
        for b in digest { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0xf)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
