import CCurl
import CVips

/// The libcurl and libvips that imgfetch finds at run time, their versions and the features that
/// depend on them (as `curl -V` reports its own). Probing loads both libraries (tens of
/// milliseconds), so only `imgfetch --version` does it, never a retrieval.
public struct LibraryVersions: Sendable {
    /// One library: its version, or why it could not be loaded.
    public struct Library: Sendable {
        public var name: String
        public var version: String?
        /// More about it (libcurl's TLS library), or nil.
        public var detail: String?
        /// Why it could not be loaded, when `version` is nil.
        public var problem: String?
    }

    public var curl: Library
    public var vips: Library
    /// Feature names and whether the libraries found provide them, in a fixed order:
    /// HTTP2, HTTP3 (libcurl), AVIF, HEIF, JXL, WebP (libvips savers; JXL: its loader, read with
    /// `--allow-jxl`, since libvips 8.14 blocks it as untrusted and imgfetch never writes JXL).
    public var features: [(name: String, available: Bool)]

    /// Loads libcurl, then libvips, and asks each.
    public static func probe() -> LibraryVersions {
        var err = [CChar](repeating: 0, count: 512)
        var version = [CChar](repeating: 0, count: 64), ssl = [CChar](repeating: 0, count: 128)
        var http2: Int32 = 0, http3: Int32 = 0
        var curl = Library(name: "libcurl")
        if ifc_version(&version, version.count, &ssl, ssl.count, &http2, &http3, &err, err.count) == 0 {
            curl.version = string(version)
            let tls = string(ssl)
            curl.detail = tls.isEmpty ? nil : tls
        } else {
            curl.problem = string(err)
        }

        var vips = Library(name: "libvips")
        version = [CChar](repeating: 0, count: 64)
        err = [CChar](repeating: 0, count: 512)
        if ifv_version(&version, version.count, &err, err.count) == 0 {
            vips.version = string(version)
        } else {
            vips.problem = string(err)
        }
        let loaded = vips.version != nil
        let saver = { (suffix: String) in loaded && VipsBridge.canSave(suffix: suffix) }
        let features = [("HTTP2", http2 != 0), ("HTTP3", http3 != 0), ("AVIF", saver(".avif")), ("HEIF", saver(".heic")),
                        ("JXL", loaded && VipsBridge.canLoadJXL), ("WebP", saver(".webp"))]
        return LibraryVersions(curl: curl, vips: vips, features: features.map { (name: $0.0, available: $0.1) })
    }

    private static func string(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
