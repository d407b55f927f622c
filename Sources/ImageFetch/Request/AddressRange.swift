#if canImport(Glibc)
import Glibc
#endif

/// A range of IP addresses, `ADDRESS/PREFIX` (CIDR): what the address guard denies
/// (`NetworkOptions.deniedAddresses`). IPv4 and IPv6; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`)
/// is checked as its IPv4 address, so an IPv4 range covers both spellings; the C guard also checks
/// NAT64, 6to4 and IPv4-compatible addresses as the IPv4 address they embed (`ifc_address_denied`).
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    /// 4 or 16 bytes, the bits past `prefix` cleared.
    public let bytes: [UInt8]
    public let prefix: Int

    /// `ADDRESS/PREFIX` or a lone address (all its bits); nil for anything else (a host name, a
    /// prefix past the address's length, blanks).
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, !first.isEmpty, first.utf8.count <= 64 else { return nil }
        var raw = [UInt8](repeating: 0, count: 16)
        let address = String(first)
        var length = 0
        if inet_pton(AF_INET, address, &raw) == 1 {
            length = 4
        } else if inet_pton(AF_INET6, address, &raw) == 1 {
            length = 16
        } else {
            return nil
        }
        var bytes = Array(raw[0..<length])
        var prefix = length * 8
        if parts.count == 2 {
            guard let p = Int(parts[1]), parts[1].utf8.allSatisfy({ (48...57).contains($0) }), parts[1].count <= 3,
                  (0...length * 8).contains(p) else { return nil }
            prefix = p
        }
        // ::ffff:a.b.c.d/96+N is a.b.c.d/N: the guard compares mapped addresses as IPv4 ones.
        if length == 16, prefix >= 96, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            bytes = Array(bytes[12..<16])
            prefix -= 96
        }
        for i in 0..<bytes.count {
            let keep = max(0, min(8, prefix - i * 8))
            bytes[i] &= keep == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
        self.bytes = bytes
        self.prefix = prefix
    }

    public var description: String {
        var text = [CChar](repeating: 0, count: 64)
        let raw = bytes + [UInt8](repeating: 0, count: 16 - bytes.count)
        _ = inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, raw, &text, socklen_t(text.count))
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/\(prefix)"
    }

    /// The rule the C guard takes (`IFC_DENY_RULE_SIZE` bytes): family, prefix, 16 address bytes.
    var rule: [UInt8] {
        [bytes.count == 4 ? 4 : 6, UInt8(prefix)] + bytes + [UInt8](repeating: 0, count: 16 - bytes.count)
    }

    /// What is not the public Internet: unspecified and "this network" (0.0.0.0/8, ::/128),
    /// loopback (127.0.0.0/8, ::1), RFC 1918 (10/8, 172.16/12, 192.168/16), link-local
    /// (169.254.0.0/16, where cloud metadata services answer, and fe80::/10), CGNAT (100.64.0.0/10),
    /// unique local IPv6 (fc00::/7). IPv4-mapped IPv6 forms are covered by the IPv4 ranges.
    public static let nonPublic: [AddressRange] = [
        "0.0.0.0/8", "127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
        "100.64.0.0/10", "::/128", "::1/128", "fc00::/7", "fe80::/10",
    ].map { AddressRange(parsing: $0)! }
}
