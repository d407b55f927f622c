/// HMAC-SHA256 (RFC 2104), for keyed digests of credentials (`CredentialDigest`).
extension SHA256 {
    /// HMAC-SHA256 of `message` under `key`.
    public static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key
        if block.count > 64 { var h = SHA256(); h.update(block); block = h.finalize() }
        block += [UInt8](repeating: 0, count: 64 - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalize()
    }
}
