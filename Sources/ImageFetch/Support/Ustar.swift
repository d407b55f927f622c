/// POSIX ustar archive members (IEEE Std 1003.1, `pax -x ustar`), written by hand: a 512-byte header
/// block per member, its data padded with zeros to a whole block, and two zero blocks to end the
/// archive. Regular files only, mode 0644, uid and gid 0, under a flat name of at most 100 bytes of
/// printable ASCII with no `/` (so no member can name a directory or a path outside the archive's).
public enum Ustar {
    public static let block = 512
    /// The name field's width: a longer name would need the prefix field (a `/` split), refused.
    public static let maxNameBytes = 100
    /// The largest size the 11 octal digits of the size field hold (8 GiB - 1).
    public static let maxSize = 0o77777777777

    public enum Refusal: Error, Equatable {
        /// Empty, `.`, `..`, a `/`, or a byte outside printable ASCII.
        case badName(String)
        case nameTooLong(Int)
        case tooLarge(Int)

        public var message: String {
            switch self {
            case .badName: "a tar member name must be printable ASCII without '/' (and not '.' or '..')"
            case .nameTooLong(let n): "a tar member name holds at most \(Ustar.maxNameBytes) bytes, not \(n)"
            case .tooLarge(let n): "a tar member holds at most \(Ustar.maxSize) bytes, not \(n)"
            }
        }
    }

    /// Why `name` cannot name a member of `size` bytes; nil when it can.
    public static func refusal(name: String, size: Int) -> Refusal? {
        let bytes = Array(name.utf8)
        if bytes.isEmpty || name == "." || name == ".." || !bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) {
            return .badName(name)
        }
        if bytes.count > maxNameBytes { return .nameTooLong(bytes.count) }
        if size < 0 || size > maxSize { return .tooLarge(size) }
        return nil
    }

    /// The header block of a member `name` of `size` bytes, modified at `mtime`: its data and
    /// `padding(size)` zeros follow it.
    public static func header(name: String, size: Int, mtime: Int64) throws(Refusal) -> [UInt8] {
        if let refusal = refusal(name: name, size: size) { throw refusal }
        var h = [UInt8](repeating: 0, count: block)
        put(Array(name.utf8), at: 0, in: &h)
        octal(0o644, width: 8, at: 100, in: &h)            // mode
        octal(0, width: 8, at: 108, in: &h)                // uid
        octal(0, width: 8, at: 116, in: &h)                // gid
        octal(size, width: 12, at: 124, in: &h)            // size
        octal(Int(max(0, min(mtime, Int64(maxSize)))), width: 12, at: 136, in: &h)
        h[156] = UInt8(ascii: "0")                         // typeflag: a regular file
        put(Array("ustar\0".utf8), at: 257, in: &h)        // magic
        put(Array("00".utf8), at: 263, in: &h)             // version
        octal(0, width: 8, at: 329, in: &h)                // devmajor
        octal(0, width: 8, at: 337, in: &h)                // devminor
        // The checksum: the sum of the header's bytes with its own field as 8 spaces, written as
        // 6 octal digits, a NUL and a space.
        for i in 148..<156 { h[i] = 0x20 }
        octal(h.reduce(0) { $0 + Int($1) }, width: 7, at: 148, in: &h)
        h[155] = 0x20
        return h
    }

    /// The zeros after `size` bytes of data up to the next block.
    public static func padding(_ size: Int) -> Int { (block - size % block) % block }

    /// The end of an archive: two zero blocks.
    public static var end: [UInt8] { [UInt8](repeating: 0, count: 2 * block) }

    private static func put(_ bytes: [UInt8], at offset: Int, in h: inout [UInt8]) {
        for (i, b) in bytes.enumerated() { h[offset + i] = b }
    }

    /// `value` in `width - 1` zero-padded octal digits, then a NUL.
    private static func octal(_ value: Int, width: Int, at offset: Int, in h: inout [UInt8]) {
        var v = value
        for i in stride(from: width - 2, through: 0, by: -1) {
            h[offset + i] = UInt8(ascii: "0") + UInt8(v & 7)
            v >>= 3
        }
        h[offset + width - 1] = 0
    }
}
