import CCrypto

/// SHA-512 (FIPS 180-4) by libcrypto's static archive, as `SHA256`: only for checking an HTTP
/// response's RFC 9530 digest (`HTTPDigests`). A value: copies hash on independently.
struct SHA512: Sendable {
    private var context = icr_sha512_ctx()

    init() { icr_sha512_init(&context) }

    mutating func update(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { icr_sha512_update(&context, $0.baseAddress, $0.count) }
    }

    /// The 64-byte digest; the value starts over, as a new one.
    mutating func finalize() -> [UInt8] {
        let digest = [UInt8](unsafeUninitializedCapacity: 64) { buffer, count in
            icr_sha512_final(&context, buffer.baseAddress!)
            count = 64
        }
        icr_sha512_init(&context)
        return digest
    }
}
