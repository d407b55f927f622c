/// The digests of an RFC 9530 `Repr-Digest` or `Content-Digest` field that imgfetch can check:
/// `sha-256` and `sha-512` (the RFC's two "Active" algorithms), each a byte sequence of its exact
/// length. Unknown algorithms, and the deprecated ones (md5, sha, crc32c, ...), are ignored; a
/// field that does not parse as an RFC 9651 dictionary is ignored whole (nil), as is one with
/// neither algorithm.
struct HTTPDigests: Equatable, Sendable {
    var sha256: [UInt8]?
    var sha512: [UInt8]?

    init?(field: String?) {
        guard let field, let dictionary = StructuredDictionary(field) else { return nil }
        if case .bytes(let b) = dictionary["sha-256"], b.count == 32 { sha256 = b }
        if case .bytes(let b) = dictionary["sha-512"], b.count == 64 { sha512 = b }
        guard sha256 != nil || sha512 != nil else { return nil }
    }

    /// Whether `bytes` has every digest given (`whole` first, then `rest`: a stitched body is never
    /// copied to be checked).
    func matches(_ whole: ArraySlice<UInt8>, _ rest: ArraySlice<UInt8> = []) -> Bool {
        if let sha256 {
            var h = SHA256()
            h.update(whole)
            h.update(rest)
            guard h.finalize() == sha256 else { return false }
        }
        if let sha512 {
            var h = SHA512()
            h.update(whole)
            h.update(rest)
            guard h.finalize() == sha512 else { return false }
        }
        return true
    }

    /// Whether `other` names another representation: an algorithm both give differs.
    func contradicts(_ other: HTTPDigests) -> Bool {
        if let a = sha256, let b = other.sha256, a != b { return true }
        if let a = sha512, let b = other.sha512, a != b { return true }
        return false
    }

    /// The algorithms given, strongest first, as words (`sha-512, sha-256`).
    var algorithms: String { [sha512 != nil ? "sha-512" : nil, sha256 != nil ? "sha-256" : nil].compactMap { $0 }.joined(separator: ", ") }

    /// The field as a dictionary of what is kept (`sha-256=:...:`): how a partial's meta keeps it.
    var field: String {
        var members: [String] = []
        if let sha256 { members.append("sha-256=:\(Base64.encode(sha256)):") }
        if let sha512 { members.append("sha-512=:\(Base64.encode(sha512)):") }
        return members.joined(separator: ", ")
    }
}
