/// The http(s) checks of `Source(parsing:)` over UTF-8 bytes, for a URL that is ASCII without a CR.
/// There each `Character` is one byte (the only grapheme of two ASCII scalars is CR LF), so these
/// give exactly what the `ByCharacter` versions give (SourceASCIITests and the `source` fuzz target
/// compare the two), at a fraction of the cost: walking `Character`s was ~90,000 of the ~178,000
/// instructions a list line took, which every shard pays for every line of the list.
/// Each returns nil for any other text, which then takes the `Character` path.
extension Source {
    /// Whether `bytes` has only ASCII and no CR: what makes a byte a `Character`.
    static func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !bytes.contains { $0 >= 0x80 || $0 == 0x0D }
    }

    static func asciiHasValidAuthority(_ text: String, scheme: String) -> Bool? {
        let skip = scheme.utf8.count + 3
        let verdict: Bool?? = text.utf8.withContiguousStorageIfAvailable { b -> Bool? in
            guard isPlainASCII(b) else { return nil }
            guard skip < b.count else { return false }
            let rest = b[skip...]
            guard !rest.contains(where: { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 }) else { return false }
            var authority = rest.prefix { $0 != 0x2F && $0 != 0x3F && $0 != 0x23 }   // / ? #
            if let at = authority.lastIndex(of: 0x40) { authority = authority[(at + 1)...] }   // @
            var host = authority
            if authority.first == 0x5B {   // [
                guard let close = authority.firstIndex(of: 0x5D) else { return false }   // ]
                host = authority[...close]
                let after = authority[(close + 1)...]
                if !after.isEmpty { guard after.first == 0x3A, after.dropFirst().allSatisfy(isDigit) else { return false } }
                return host.count > 2
            }
            if let colon = authority.lastIndex(of: 0x3A) {   // :
                host = authority[..<colon]
                let port = authority[(colon + 1)...]
                guard port.allSatisfy(isDigit), port.count <= 5 else { return false }
            }
            return !host.isEmpty && host.allSatisfy { isLetter($0) || isDigit($0) || $0 == 0x2E || $0 == 0x2D || $0 == 0x5F || $0 == 0x25 }
        }
        return verdict ?? nil
    }

    static func asciiNormalizeHTTP(_ text: String, scheme: String) -> String? {
        let skip = scheme.utf8.count + 3
        let normalized: String?? = text.utf8.withContiguousStorageIfAvailable { b -> String? in
            guard isPlainASCII(b) else { return nil }
            var rest = b[min(skip, b.count)...]
            if let hash = rest.firstIndex(of: 0x23) { rest = rest[..<hash] }   // #
            let authorityEnd = rest.firstIndex(where: { $0 == 0x2F || $0 == 0x3F }) ?? rest.endIndex
            // Scheme and host are case-insensitive; user information is not.
            let authority = rest[..<authorityEnd]
            let hostStart = authority.lastIndex(of: 0x40).map { $0 + 1 } ?? authority.startIndex
            var out = Array((scheme + "://").utf8)
            out.reserveCapacity(out.count + rest.count + 1)
            out.append(contentsOf: authority[..<hostStart])
            out.append(contentsOf: authority[hostStart...].lazy.map { isUpper($0) ? $0 | 0x20 : $0 })
            let path = rest[authorityEnd...]
            if path.isEmpty || path.first == 0x3F { out.append(0x2F) }
            out.append(contentsOf: path)
            return String(decoding: out, as: UTF8.self)
        }
        return normalized ?? nil
    }

    @inline(__always) private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    @inline(__always) private static func isUpper(_ c: UInt8) -> Bool { c >= 0x41 && c <= 0x5A }
    @inline(__always) private static func isLetter(_ c: UInt8) -> Bool { isUpper(c) || (c >= 0x61 && c <= 0x7A) }
}
