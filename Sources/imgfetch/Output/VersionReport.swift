import ImageFetch

/// `imgfetch --version`, as `curl -V` prints its own: the version first (scripts read line 1), then
/// the libraries found at run time and the features they provide.
///
///     imgfetch 0.1.0
///     libcurl 7.88.1 (OpenSSL/3.0.15)
///     libvips 8.14.1
///     Features: HTTP2 AVIF HEIF JXL (input, with --allow-jxl) WebP
///     Missing: HTTP3
enum VersionReport {
    static func text(_ versions: LibraryVersions) -> String {
        var lines = ["imgfetch \(ImageFetchVersion.string)"]
        for library in [versions.curl, versions.vips] {
            if let version = library.version {
                lines.append("\(library.name) \(version)" + (library.detail.map { " (\($0))" } ?? ""))
            } else {
                lines.append("\(library.name): not found (\(library.problem ?? "cannot be loaded"))")
            }
        }
        // JXL is the loader --allow-jxl unblocks: a source's format, never an output's.
        let available = versions.features.filter(\.available).map { $0.name == "JXL" ? "JXL (input, with --allow-jxl)" : $0.name }
        let missing = versions.features.filter { !$0.available }.map(\.name)
        lines.append("Features: " + (available.isEmpty ? "-" : available.joined(separator: " ")))
        if !missing.isEmpty { lines.append("Missing: " + missing.joined(separator: " ")) }
        return lines.joined(separator: "\n") + "\n"
    }
}
