import CCrypto

/// SHA-256 (FIPS 180-4), used for cache keys (file names), entry checksums, sources' digests and list
/// digests: libcrypto's code, linked statically (`CCrypto`), which uses the CPU's SHA extensions or
/// AVX2 (~28 instructions a byte where neither runs, as under valgrind; a Swift compression took ~75).
/// A value: copies hash on independently.
public struct SHA256: Sendable {
    private var context = icr_sha256_ctx()

    public init() { icr_sha256_init(&context) }

    public mutating func update(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { icr_sha256_update(&context, $0.baseAddress, $0.count) }
    }

    public mutating func update(_ bytes: [UInt8]) { update(bytes[...]) }
    public mutating func update(_ string: String) {
        var string = string
        string.withUTF8 { icr_sha256_update(&context, $0.baseAddress, $0.count) }
    }

    /// The 32-byte digest; the value starts over, as a new one.
    public mutating func finalize() -> [UInt8] {
        let digest = [UInt8](unsafeUninitializedCapacity: 32) { buffer, count in
            icr_sha256_final(&context, buffer.baseAddress!)
            count = 32
        }
        icr_sha256_init(&context)
        return digest
    }

    /// The lowercase hex digest of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        var h = SHA256()
        h.update(bytes)
        return hexString(h.finalize())
    }

    public static func hex(_ string: String) -> String {
        var h = SHA256()
        h.update(string)
        return hexString(h.finalize())
    }

    public static func hexString(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(digest.count * 2)
        for b in digest { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0xf)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
