/// The EXIF and XMP blocks of a JPEG (its APP1 segments before the first scan), checked for damage
/// that leaves them unreadable: an IFD or a value that points past the block's end, a TIFF header
/// that is not one, an XMP packet that is not UTF-8 or lacks its `rdf:RDF` element. Damaged
/// metadata is no reason to lose the picture: a thumbnail drops it (as it drops all metadata but
/// what `--keep-metadata` keeps, and a damaged block is not kept either), with a warning and the
/// record's `metadata_dropped` (issue 41, point 10). Bounded: the segments up to the first scan,
/// at most 16 IFDs a block; everything here is hostile input.
enum JpegMetadataCheck {
    struct Damage: Equatable {
        /// `exif` or `xmp` (the record's names).
        var block: String
        /// Why, in words ("IFD0 at offset 8 has 32 entries, past the end of its 134 bytes").
        var why: String
    }

    static let xmpPrefix = Array("http://ns.adobe.com/xap/1.0/\u{0}".utf8)
    static let exifPrefix = Array("Exif\u{0}\u{0}".utf8)

    /// The damaged blocks of `bytes` (none when it is not a JPEG), each block once.
    static func damage(in bytes: [UInt8]) -> [Damage] {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return [] }
        var found: [Damage] = []
        var i = 2
        while i + 4 <= bytes.count {
            // Stray bytes between segments are skipped, as libjpeg does before the first scan.
            guard bytes[i] == 0xFF else { i += 1; continue }
            let marker = bytes[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0x01 || (0xD0...0xD8).contains(marker) { i += 2; continue }
            if marker == 0xDA || marker == 0xD9 { break }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2, i + 2 + length <= bytes.count else { break }
            if marker == 0xE1 {
                let segment = bytes[(i + 4)..<(i + 2 + length)]
                var problem: Damage?
                if segment.starts(with: exifPrefix) {
                    problem = exifProblem(Array(segment.dropFirst(exifPrefix.count))).map { Damage(block: "exif", why: $0) }
                } else if segment.starts(with: xmpPrefix) {
                    problem = xmpProblem(Array(segment.dropFirst(xmpPrefix.count))).map { Damage(block: "xmp", why: $0) }
                }
                if let problem, !found.contains(where: { $0.block == problem.block }) { found.append(problem) }
            }
            i += 2 + length
        }
        return found
    }

    /// Why a TIFF structure (an EXIF block after its `Exif\0\0`) cannot be read, or nil.
    static func exifProblem(_ t: [UInt8]) -> String? {
        let n = t.count
        guard n >= 8 else { return "its TIFF header is \(n) bytes, shorter than 8" }
        let little: Bool
        switch (t[0], t[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return "it has no TIFF byte order (II or MM)"
        }
        func u16(_ at: Int) -> Int { little ? Int(t[at]) | Int(t[at + 1]) << 8 : Int(t[at]) << 8 | Int(t[at + 1]) }
        func u32(_ at: Int) -> Int {
            little ? Int(t[at]) | Int(t[at + 1]) << 8 | Int(t[at + 2]) << 16 | Int(t[at + 3]) << 24
                   : Int(t[at]) << 24 | Int(t[at + 1]) << 16 | Int(t[at + 2]) << 8 | Int(t[at + 3])
        }
        guard u16(2) == 42 else { return "its TIFF header does not say 42" }
        // Each IFD to read: its offset and its name; every offset is checked before it is read.
        var pending: [(offset: Int, name: String)] = [(u32(4), "IFD0")]
        var seen: Set<Int> = []
        while let (offset, name) = pending.popLast() {
            guard seen.count < 16, seen.insert(offset).inserted else { continue }
            guard offset >= 8, offset <= n - 2 else { return "\(name) at offset \(offset) is past the end of its \(n) bytes" }
            let count = u16(offset)
            let end = offset + 2 + count * 12
            guard end <= n else { return "\(name) at offset \(offset) has \(count) entries, past the end of its \(n) bytes" }
            for e in 0..<count {
                let at = offset + 2 + e * 12
                let tag = u16(at), type = u16(at + 2), components = u32(at + 4), value = u32(at + 8)
                let unit = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4]
                guard type >= 1, type < unit.count else { continue }   // a type libexif skips too
                let size = unit[type] * components
                if [0x8769, 0x8825, 0xA005].contains(tag) {
                    pending.append((value, "the IFD of tag 0x\(String(tag, radix: 16))"))
                } else if size > 4 && (value > n || size > n - value) {
                    return "tag 0x\(String(tag, radix: 16)) of \(name) has \(size) bytes at offset \(value), past the end of its \(n) bytes"
                }
            }
            if end + 4 <= n, case let next = u32(end), next != 0 { pending.append((next, "the IFD after \(name)")) }
        }
        return nil
    }

    /// Why an XMP packet cannot be read, or nil.
    static func xmpProblem(_ packet: [UInt8]) -> String? {
        guard String(validating: packet, as: UTF8.self) != nil else { return "its XMP packet is not UTF-8" }
        let open = Array("<rdf:RDF".utf8), close = Array("</rdf:RDF>".utf8)
        guard let start = packet.firstRange(of: open) else { return "its XMP packet has no rdf:RDF element" }
        guard packet[start.upperBound...].firstRange(of: close) != nil else { return "its XMP packet is cut short (no </rdf:RDF>)" }
        return nil
    }
}

extension ProcessedImage {
    /// This re-encoded image with `damage` said: its blocks in `droppedMetadata`, a warning each.
    func dropping(_ damage: [JpegMetadataCheck.Damage]) -> ProcessedImage {
        var image = self
        for d in damage where !image.droppedMetadata.contains(d.block) {
            image.droppedMetadata.append(d.block)
            image.warnings.append("its \(d.block == "exif" ? "EXIF" : "XMP") metadata is damaged (\(d.why)): dropped, the picture kept")
        }
        return image
    }
}
