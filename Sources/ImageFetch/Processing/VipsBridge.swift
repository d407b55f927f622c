// VipsBridge: the Swift face of the CVips shim (libvips loaded with dlopen on first use).
//
// This file and the curl bridge are the only places where unsafe pointer code lives. Every
// entry point calls `load()` first (vips calls before vips_init crash); after that all functions
// are safe to call from several threads at once.

import CVips

/// A libvips failure, carrying vips's own message (or the shim's, when vips said nothing).
public struct VipsFailure: Error, Sendable {
    public let message: String
    public init(message: String) { self.message = message }
}

/// What the header of an encoded image says, read without decoding any pixels.
public struct ImageHeader: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var bands: Int
    public var hasAlpha: Bool
    /// Number of pages/frames (1 when the format has no such notion).
    public var pages: Int
    /// The image carries an ICC profile (converted to sRGB when processed).
    public var hasProfile: Bool = false
    /// Why the embedded ICC profile cannot be used ("is 7 bytes, shorter than..."): it then counts
    /// as none (the picture is taken as sRGB); nil when there is none or it is usable.
    public var profileProblem: String? = nil
    /// The vips loader nickname, e.g. "jpegload_buffer".
    public var loader: String
    /// Short format name derived from the loader: "jpeg", "png", "webp", "gif", "tiff", "svg", ...
    /// HEIF-family files (which vips loads with heifload) are reported as "avif" when the ISO-BMFF
    /// `ftyp` box names an AV1 brand ("avif"/"avis"), else "heif".
    public var format: String

    public init(width: Int, height: Int, bands: Int, hasAlpha: Bool, pages: Int, loader: String, format: String, hasProfile: Bool = false) {
        self.hasProfile = hasProfile
        self.width = width
        self.height = height
        self.bands = bands
        self.hasAlpha = hasAlpha
        self.pages = pages
        self.loader = loader
        self.format = format
    }
}

/// An encoded thumbnail.
public struct EncodedImage: Sendable {
    public var bytes: [UInt8]
    public var width: Int
    public var height: Int

    public init(bytes: [UInt8], width: Int, height: Int) {
        self.bytes = bytes
        self.width = width
        self.height = height
    }
}

public enum VipsBridge {
    /// Box size used for an unconstrained dimension.
    static let unconstrained = 10_000_000
    private static let errorCapacity = 1024

    /// dlopen libvips and initialise it. Idempotent and thread-safe; cheap after the first call.
    public static func load() throws(VipsFailure) {
        var err = [CChar](repeating: 0, count: errorCapacity)
        let rc = err.withUnsafeMutableBufferPointer { ifv_load($0.baseAddress, $0.count) }
        if rc != 0 { throw failure(err, fallback: "cannot load libvips") }
    }

    /// Loads only the image-format modules of libvips (heif for AVIF/HEIC, jxl), by absolute path from
    /// the system's module directory beside libvips, each when a source or saver first needs it
    /// (the CVips shim sniffs the bytes); ImageMagick, poppler and openslide stay unloaded,
    /// and no module is ever loaded from a directory a user can write to. Unless `$VIPSHOME` is set
    /// (then libvips loads what it names). Call first thing in `main`, while the process is still
    /// single-threaded: it sets `$VIPSHOME` (setenv is not thread-safe). Does not load libvips.
    public static func restrictModules() {
        ifv_restrict_modules()
    }

    /// Threads per image pipeline (1 = one thread per image), unless `$VIPS_CONCURRENCY` is set.
    /// Does not load libvips: applied when it loads.
    public static func setConcurrency(_ n: Int) {
        ifv_set_concurrency(Int32(clamping: n))
    }

    /// Reads the header only (sequential access, no pixel decode): cheap even for a pixel bomb.
    public static func header(_ bytes: [UInt8]) throws(VipsFailure) -> ImageHeader {
        try load()
        var err = [CChar](repeating: 0, count: errorCapacity)
        var h = ifv_header()
        let rc = bytes.withUnsafeBufferPointer { buf in
            err.withUnsafeMutableBufferPointer { e in
                ifv_read_header(buf.baseAddress, buf.count, &h, e.baseAddress, e.count)
            }
        }
        if rc != 0 { throw failure(err, fallback: "cannot read image header") }
        let loader = withUnsafeBytes(of: h.loader) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        let problem = withUnsafeBytes(of: h.profile_problem) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        var header = ImageHeader(
            width: Int(h.width), height: Int(h.height), bands: Int(h.bands),
            hasAlpha: h.has_alpha != 0, pages: max(1, Int(h.pages)),
            loader: loader, format: formatName(loader: loader, bytes: bytes), hasProfile: h.has_profile != 0)
        header.profileProblem = problem.isEmpty ? nil : problem
        return header
    }

    /// Fully decodes the image (failing on an error or truncation, not on a loader's warning: `fail_on=error`) without encoding anything.
    public static func validate(_ bytes: [UInt8]) throws(VipsFailure) {
        try load()
        var err = [CChar](repeating: 0, count: errorCapacity)
        let rc = bytes.withUnsafeBufferPointer { buf in
            err.withUnsafeMutableBufferPointer { e in
                ifv_validate(buf.baseAddress, buf.count, e.baseAddress, e.count)
            }
        }
        if rc != 0 { throw failure(err, fallback: "image decode failed") }
    }

    /// Thumbnails as `vipsthumbnail` does (shrink-on-load, never upscaling, orientation applied),
    /// converts a source carrying an ICC profile to sRGB, removes every metadata field, and encodes
    /// with the saver for `suffix` (".jpg", ".png", ".webp", ".avif", ".gif"). `nil` width/height =
    /// unconstrained; `cover` fills the box and crops the centre. `quality` (1-100) applies to lossy
    /// savers only. The height returned is one frame's. (The pipeline's call is `thumbnail(_:for:...)`.)
    public static func thumbnail(_ bytes: [UInt8], width: Int?, height: Int?, cover: Bool, suffix: String,
                                 quality: Int?) throws(VipsFailure) -> EncodedImage {
        var opts = ifv_thumb_opts()
        opts.width = Int32(clamping: width ?? unconstrained)
        opts.height = Int32(clamping: height ?? unconstrained)
        opts.crop = cover ? Int32(VipsBridge.interesting(nil)) : 0
        opts.quality = Int32(clamping: min(max(quality ?? 0, 0), 100))
        return try thumbnail(bytes, options: &opts, suffix: suffix)
    }

    /// The thumbnail `processing` asks for, saved as `target` (`allPages`: every frame of an
    /// animation; `extras`: the other outputs of the same decode, `VipsBridge+Outputs`).
    /// `maxPixels`: cover with upscale crops the source before scaling it when the scaled source
    /// would be over it (`vips_cropfirst.c`); 0: never.
    static func thumbnail(_ bytes: [UInt8], for processing: Processing, saving target: ImageFormat,
                          allPages: Bool, maxPixels: Int64 = 0, extras: UnsafeMutablePointer<ifv_thumb_extras>? = nil) throws(VipsFailure) -> EncodedImage {
        var opts = options(for: processing, saving: target, allPages: allPages)
        opts.max_pixels = Double(max(maxPixels, 0))
        opts.extras = extras
        return try thumbnail(bytes, options: &opts, suffix: target.saveSuffix)
    }

    /// Where each processing option becomes a libvips step's option (`ifv_thumb_opts`, cvips.h):
    /// one line each, the C pass-through of a new processing option.
    static func options(for p: Processing, saving target: ImageFormat, allPages: Bool) -> ifv_thumb_opts {
        // -f auto: each candidate takes the quality if lossy, and alpha stays for those that keep it.
        let auto = p.format == .auto
        var opts = ifv_thumb_opts()
        opts.width = Int32(clamping: p.width ?? unconstrained)
        opts.height = Int32(clamping: p.height ?? unconstrained)
        opts.crop = p.coversBox ? Int32(VipsBridge.interesting(p.crop)) : 0   // cover, and which part it keeps
        opts.quality = Int32(clamping: min(max((target.isLossy || auto ? p.quality : nil) ?? 0, 0), 100))
        opts.linear = p.linear ? 1 : 0
        opts.all_pages = allPages ? 1 : 0
        opts.sharpen = p.sharpen == true ? 1 : 0
        opts.upscale = p.upscale == true ? 1 : 0
        opts.keep_exif = p.keepMetadata?.copyright == true ? 1 : 0
        opts.keep_icc = p.keepMetadata?.icc == true ? 1 : 0
        if !(target.hasAlpha || auto) {   // flattened onto the background, for savers without alpha
            opts.flatten = 1
            opts.background = (Double(p.background.red), Double(p.background.green), Double(p.background.blue))
        }
        return opts
    }

    /// `ifv_thumbnail` with `opts` and the saver for `suffix`.
    private static func thumbnail(_ bytes: [UInt8], options opts: inout ifv_thumb_opts, suffix: String) throws(VipsFailure) -> EncodedImage {
        try load()
        var err = [CChar](repeating: 0, count: errorCapacity)
        var out: UnsafeMutableRawPointer? = nil
        var outLen = 0
        var outW: Int32 = 0
        var outH: Int32 = 0
        let rc = suffix.withCString { cSuffix in
            opts.save_suffix = cSuffix
            return bytes.withUnsafeBufferPointer { buf in
                err.withUnsafeMutableBufferPointer { e in
                    ifv_thumbnail(buf.baseAddress, buf.count, &opts, &out, &outLen, &outW, &outH,
                                  e.baseAddress, e.count)
                }
            }
        }
        opts.save_suffix = nil
        guard rc == 0, let out else {
            if let out { ifv_free(out) }
            throw failure(err, fallback: "thumbnail failed")
        }
        defer { ifv_free(out) }
        let encoded = [UInt8](UnsafeRawBufferPointer(start: out, count: outLen))
        return EncodedImage(bytes: encoded, width: Int(outW), height: Int(outH))
    }

    /// libvips' `VipsInteresting` value of a crop.
    static func interesting(_ crop: Processing.Crop?) -> Int {
        switch crop {
        case nil, .centre: 1
        case .entropy: 2
        case .attention: 3
        }
    }

    /// Lets libvips read JXL (its loader is untrusted in 8.14, so blocked with the others); JXL
    /// stays input only. Call before libvips loads, while the process is single-threaded.
    public static func allowJXL() {
        ifv_allow_jxl()
    }

    /// This libvips build has a JXL loader (used only after `allowJXL`).
    public static var canLoadJXL: Bool {
        guard (try? load()) != nil else { return false }
        return ifv_can_load_jxl() != 0
    }

    /// True when this libvips build has a buffer saver for `suffix` (".avif" may be missing).
    /// A heif saver can exist while its AV1 encoder is missing: `thumbnail` then fails cleanly.
    public static func canSave(suffix: String) -> Bool {
        guard (try? load()) != nil else { return false }
        return suffix.withCString { ifv_can_save($0) } != 0
    }

    // MARK: - Helpers

    private static func failure(_ err: [CChar], fallback: String) -> VipsFailure {
        let message = String(decoding: err.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return VipsFailure(message: message.isEmpty ? fallback : message)
    }

    /// "jpegload_buffer" -> "jpeg"; heifload -> "avif" or "heif" by the ftyp brands.
    static func formatName(loader: String, bytes: [UInt8]) -> String {
        let prefix: Substring
        if let range = loader.firstRange(of: "load") {
            prefix = loader[..<range.lowerBound]
        } else {
            prefix = Substring(loader)
        }
        switch prefix {
        case "heif": return isAVIF(bytes) ? "avif" : "heif"
        case "jpeg", "png", "webp", "gif", "tiff", "svg": return String(prefix)
        default: return prefix.isEmpty ? loader : String(prefix)
        }
    }

    /// ISO-BMFF: bytes 4..<8 are "ftyp", 8..<12 the major brand, then minor version and compatible brands.
    static func isAVIF(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 16, bytes[4...7].elementsEqual("ftyp".utf8) else { return false }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(max(boxSize, 16), bytes.count, 256)
        var brands: [ArraySlice<UInt8>] = [bytes[8..<12]]
        var i = 16
        while i + 4 <= end {
            brands.append(bytes[i..<(i + 4)])
            i += 4
        }
        // A major brand of avif/avis is decisive; otherwise an AV1 brand among compatible brands
        // without a HEVC one.
        if brands[0].elementsEqual("avif".utf8) || brands[0].elementsEqual("avis".utf8) { return true }
        let hevc = ["heic", "heix", "hevc", "hevx", "heim", "heis"]
        if brands.contains(where: { b in hevc.contains { b.elementsEqual($0.utf8) } }) { return false }
        return brands.contains { $0.elementsEqual("avif".utf8) || $0.elementsEqual("avis".utf8) }
    }
}
