// VipsBridge+Sheet: a contact sheet of many images (the CVips shim's ifv_contact_sheet).

#if canImport(Glibc)
import Glibc
#endif
import CVips

/// How a contact sheet is laid out. Every cell is `cellWidth` x `cellHeight`, so a sheet of `n`
/// pictures is `min(columns, n)` cells across and `ceil(n / columns)` down, exactly.
public struct ContactSheetLayout: Sendable, Equatable {
    /// Cells across. Default 5.
    public var columns: Int
    /// The picture box, `size` x `size` pixels; pictures are never upscaled. Default 160.
    public var size: Int
    /// Pixels of label under each picture. Default 14.
    public var labelHeight: Int
    /// White pixels around each picture. Default 4.
    public var pad: Int

    public init(columns: Int = 5, size: Int = 160, labelHeight: Int = 14, pad: Int = 4) {
        self.columns = columns
        self.size = size
        self.labelHeight = labelHeight
        self.pad = pad
    }

    public var cellWidth: Int { size + 2 * pad }
    public var cellHeight: Int { size + 2 * pad + labelHeight + pad }
}

extension VipsBridge {
    /// One picture of a contact sheet: encoded image bytes (empty: a blank box) and its label,
    /// plain text (escaped here for libvips' Pango markup).
    public struct SheetItem: Sendable {
        public var bytes: [UInt8]
        public var label: String
        public init(bytes: [UInt8], label: String) {
            self.bytes = bytes
            self.label = label
        }
    }

    /// A contact sheet of `items` in order, left to right then top to bottom, encoded with the saver
    /// for `suffix` (".jpg", ".png", ".webp"). A picture that does not decode leaves its box blank.
    public static func contactSheet(_ items: [SheetItem], layout: ContactSheetLayout, suffix: String,
                                    quality: Int? = nil) throws(VipsFailure) -> EncodedImage {
        try load()
        guard !items.isEmpty else { throw VipsFailure(message: "nothing to put on the sheet") }
        // Stable copies for the C call: the images and the labels (released below).
        let datas = items.map { item -> UnsafeMutableRawBufferPointer in
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, item.bytes.count), alignment: 16)
            item.bytes.withUnsafeBytes { if let base = $0.baseAddress { copy.baseAddress!.copyMemory(from: base, byteCount: $0.count) } }
            return copy
        }
        let labels = items.map { strdup(markup($0.label)) }
        defer {
            for d in datas { d.deallocate() }
            for l in labels { free(l) }
        }
        var cItems = (0..<items.count).map { i in
            ifv_sheet_item(data: UnsafeRawPointer(datas[i].baseAddress), len: items[i].bytes.count,
                           label_markup: UnsafePointer(labels[i]))
        }
        var opts = ifv_sheet_opts()
        opts.columns = Int32(clamping: layout.columns)
        opts.size = Int32(clamping: layout.size)
        opts.label_height = Int32(clamping: layout.labelHeight)
        opts.pad = Int32(clamping: layout.pad)
        opts.dpi = 72
        opts.quality = Int32(clamping: min(max(quality ?? 0, 0), 100))
        var err = [CChar](repeating: 0, count: 1024)
        var out: UnsafeMutableRawPointer? = nil
        var outLen = 0
        var outW: Int32 = 0
        var outH: Int32 = 0
        let rc = suffix.withCString { cSuffix in
            opts.save_suffix = cSuffix
            return cItems.withUnsafeMutableBufferPointer { buf in
                err.withUnsafeMutableBufferPointer { e in
                    ifv_contact_sheet(buf.baseAddress, Int32(buf.count), &opts, &out, &outLen, &outW, &outH, e.baseAddress, e.count)
                }
            }
        }
        guard rc == 0, let out else {
            if let out { ifv_free(out) }
            let message = String(decoding: err.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw VipsFailure(message: message.isEmpty ? "contact sheet failed" : message)
        }
        defer { ifv_free(out) }
        return EncodedImage(bytes: [UInt8](UnsafeRawBufferPointer(start: out, count: outLen)), width: Int(outW), height: Int(outH))
    }

    /// Plain text as Pango markup: `&`, `<`, `>` as entities, control characters dropped.
    static func markup(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case let c where c.value < 0x20 || c.value == 0x7f: continue
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
