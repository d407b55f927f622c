// Compiled into the imgfetch executable.
import ImageFetch

/// `{path}` and `{dir}` of `--name`: a URL's path as a relative path below the output directory,
/// as wget `-x` keeps a remote folder layout, but never outside it.
extension OutputTemplate {
    /// At most this many directory components are kept (deeper ones are dropped): with
    /// `maxValueBytes` per component, a name stays far below PATH_MAX.
    static let maxDirectoryComponents = 16

    /// The URL path's components (query and fragment dropped), each percent-decoded on its own
    /// (an encoded `%2F` stays inside its component, then becomes `_`) and made safe as any value
    /// (`safe`: no `/`, `\`, NUL or other control, never `.` or `..`, at most 120 bytes, a name
    /// cut short keeping its extension), a leading `.` made `_` (no hidden file or directory). Empty and `.` components are dropped;
    /// `..` is never resolved, it becomes `_`. Files and data: URLs have none.
    public static func pathComponents(of source: Source) -> [String] {
        guard case .http(let url) = source else { return [] }
        let afterScheme = afterSchemeOf(url)
        guard let slash = afterScheme.firstIndex(of: "/") else { return [] }
        let path = afterScheme[slash...].prefix { $0 != "?" && $0 != "#" }
        var components: [String] = []
        for raw in path.split(separator: "/") {
            let decoded = percentDecoded(raw)
            if decoded == "." || decoded.isEmpty { continue }
            var safe = OutputTemplate.safe(decoded)
            // Cut short, a name keeps its extension (up to 16 bytes): `LLLL….jpg`, not `LLLL…`.
            if decoded.utf8.count > maxValueBytes, let dot = decoded.lastIndex(of: "."), dot != decoded.startIndex {
                let ext = OutputTemplate.safe(String(decoded[dot...]))
                if ext.utf8.count <= 16 { safe = OutputTemplate.safe(String(decoded[..<dot]), limit: maxValueBytes - ext.utf8.count) + ext }
            }
            if safe.hasPrefix(".") { safe = "_" + safe.dropFirst() }
            components.append(safe)
        }
        if components.count > maxDirectoryComponents + 1 {
            components = Array(components.prefix(maxDirectoryComponents)) + [components[components.count - 1]]
        }
        return components
    }

    /// `{stem}`: a safe path component without its extension (what follows its last dot, when that
    /// dot does not start it).
    static func stem(ofComponent component: String) -> String {
        guard let dot = component.lastIndex(of: "."), dot != component.startIndex else { return component }
        return String(component[..<dot])
    }

    /// `{path}`'s last component named for the format written: its extension replaced by `ext`
    /// (`p087.jpg` as WebP is `p087.webp`), unless it already names that format (`photo.JPEG` as
    /// JPEG stays) or `ext` names none (an unknown format's bytes); a component without an
    /// extension is kept as it is.
    static func withExtension(_ component: String, _ ext: String) -> String {
        guard let dot = component.lastIndex(of: "."), dot != component.startIndex,
              let written = ImageFormat(fileExtension: ext) else { return component }
        let current = component[component.index(after: dot)...]
        if ImageFormat(fileExtension: String(current)) == written { return component }
        return String(component[..<dot]) + "." + ext
    }
}
