/// Standard and URL-safe base64 decoding (padding optional, ASCII whitespace ignored), for data: URLs.
/// Works on UTF-8 bytes, never on Characters: a 30 MB payload is one linear pass, no copies.
enum Base64 {
    static let table: [Int8] = {
        var t = [Int8](repeating: -1, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() { t[Int(c)] = Int8(i) }
        t[Int(UInt8(ascii: "-"))] = 62
        t[Int(UInt8(ascii: "_"))] = 63
        // ASCII whitespace (space, \t, \n, \v, \f, \r) is skipped: -2.
        for c: UInt8 in [32, 9, 10, 11, 12, 13] { t[Int(c)] = -2 }
        return t
    }()

    /// The number of bytes `text` decodes to, without decoding it; nil when a character is not
    /// base64, padding is followed by data or is longer than 2, or the length is impossible.
    static func decodedCount(_ text: String.UTF8View) -> Int? {
        if let counted = text.withContiguousStorageIfAvailable({ decodedCount($0) }) { return counted }
        return decodedCount(Array(text))
    }

    static func decodedCount<C: Collection<UInt8>>(_ text: C) -> Int? {
        var symbols = 0
        var padding = 0
        let ok = table.withUnsafeBufferPointer { table in
            for c in text {
                if c == UInt8(ascii: "=") { padding += 1; continue }
                let v = table[Int(c)]
                if v == -2 { continue }
                guard v >= 0, padding == 0 else { return false }
                symbols += 1
            }
            return true
        }
        guard ok else { return nil }
        // A single leftover symbol carries 6 bits: less than a byte, so no valid encoder wrote it.
        guard padding <= 2, symbols % 4 != 1 else { return nil }
        return symbols * 6 / 8
    }

    /// Decodes text that `decodedCount` accepted, handing the bytes to `body` in chunks of at most
    /// `chunk` bytes. Characters that are not base64 are skipped (validate first).
    static func decode(_ text: String.UTF8View, chunk: Int, _ body: ([UInt8]) -> Void) {
        if text.withContiguousStorageIfAvailable({ decode($0, chunk: chunk, body) }) == nil {
            decode(Array(text), chunk: chunk, body)
        }
    }

    static func decode<C: Collection<UInt8>>(_ text: C, chunk: Int, _ body: ([UInt8]) -> Void) {
        var out: [UInt8] = []
        out.reserveCapacity(chunk)
        var acc: UInt32 = 0
        var bits = 0
        table.withUnsafeBufferPointer { table in
            for c in text {
                let v = table[Int(c)]
                guard v >= 0 else { continue }
                acc = (acc << 6) | UInt32(v)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
                    if out.count == chunk { body(out); out.removeAll(keepingCapacity: true) }
                }
            }
        }
        if !out.isEmpty { body(out) }
    }

    /// The decoded bytes, or nil when `text` is not valid base64.
    static func decode(_ text: String) -> [UInt8]? {
        guard let count = decodedCount(text.utf8) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(count)
        decode(text.utf8, chunk: 64 * 1024) { out.append(contentsOf: $0) }
        return out
    }

    /// Standard base64 with padding (RFC 4648 section 4).
    static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            let b0 = UInt32(bytes[i]), b1 = n > 1 ? UInt32(bytes[i + 1]) : 0, b2 = n > 2 ? UInt32(bytes[i + 2]) : 0
            let v = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(v >> 18 & 63)])
            out.append(alphabet[Int(v >> 12 & 63)])
            out.append(n > 1 ? alphabet[Int(v >> 6 & 63)] : UInt8(ascii: "="))
            out.append(n > 2 ? alphabet[Int(v & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
