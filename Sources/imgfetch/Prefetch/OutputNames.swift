// Compiled into the imgfetch executable, and with the library's sources into the fuzz targets.
#if canImport(ImageFetch)
import ImageFetch
#endif

/// A file name template for images written to an output directory: `{name}` (the source's file
/// name without its extension), `{ext}` (the output format's extension), `{key}` (the cache key),
/// `{line}` (the list line, or the source's position for `get`), `{host}` (the URL's host, `local`
/// for files and data: URLs), `{path}` and `{dir}` (the URL's path and its directory part, made
/// safe component by component: `OutputTemplate+Path`; `{path}`'s last component takes the output
/// format's extension), `{stem}` (that last component without its extension), `{w}`, `{h}`.
/// Default `{name}.{ext}`.
///
/// A name never leaves the directory: the template may hold `/` (subdirectories) but no empty, `.`
/// or `..` component, no component starting with `.` (hidden) and no leading `/`; a value put in it
/// never holds `/`, a control or bidirectional character, never starts a component with `.`, and is
/// never `.`/`..` (such characters become `_`).
public struct OutputTemplate: Sendable, Equatable {
    public let text: String
    public static let defaultText = "{name}.{ext}"
    static let placeholders: Set<String> = ["name", "ext", "key", "line", "host", "path", "dir", "stem", "w", "h"]

    /// Why a template is refused.
    public struct Invalid: Error, Sendable {
        public let message: String
    }

    /// Checks `text`; a message naming the problem when it is not usable.
    public init(_ text: String = OutputTemplate.defaultText) throws(Invalid) {
        func bad(_ why: String) -> Invalid { Invalid(message: "'\(ListParser.quoted(text, marks: false))': \(why)") }
        if text.isEmpty { throw bad("empty") }
        if text.hasPrefix("/") { throw bad("an absolute path (names are inside the output directory)") }
        if text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { throw bad("a control character") }
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { throw bad("an unclosed {") }
            let name = String(rest[rest.index(after: open)..<close])
            guard OutputTemplate.placeholders.contains(name) else {
                throw bad("unknown {\(name)}: expected {name}, {ext}, {key}, {line}, {host}, {path}, {dir}, {stem}, {w} or {h}")
            }
            rest = rest[rest.index(after: close)...]
        }
        for component in text.split(separator: "/", omittingEmptySubsequences: false) where component.isEmpty || component == "." || component == ".." {
            throw bad("an empty, . or .. path component")
        }
        for component in text.split(separator: "/") where component.hasPrefix(".") {
            throw bad("a path component that starts with . (a hidden file or directory)")
        }
        self.text = text
    }

    /// The values a name is made of.
    public struct Values: Sendable {
        public var name: String, ext: String, key: String, line: Int, host: String, width: Int, height: Int
        /// The safe components of the URL's path (`OutputTemplate.pathComponents`); none for files and data: URLs.
        public var path: [String]
        public init(name: String, ext: String, key: String, line: Int, host: String, width: Int, height: Int, path: [String] = []) {
            self.name = name; self.ext = ext; self.key = key; self.line = line; self.host = host; self.width = width; self.height = height
            self.path = path
        }

        /// The values of a delivered image of `source` (line `line`).
        public init(source: Source, result: ImageResult, line: Int) {
            let ext = ImageFormat(name: result.image.format)?.fileExtension ?? result.image.format
            self.init(name: OutputTemplate.stem(of: source), ext: ext, key: result.key.rawValue, line: line,
                      host: OutputTemplate.host(of: source), width: result.image.width, height: result.image.height,
                      path: OutputTemplate.pathComponents(of: source))
        }
    }

    /// The relative path of an image.
    public func render(_ v: Values) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let value: String
            let atComponentStart = out.isEmpty || out.hasSuffix("/")
            switch rest[rest.index(after: open)..<close] {
            case "path":
                // Each component safe already; the last one named for the format written.
                out += v.path.isEmpty ? "image" : (v.path.dropLast() + [OutputTemplate.withExtension(v.path[v.path.count - 1], v.ext)]).joined(separator: "/")
                rest = rest[rest.index(after: close)...]
                continue
            case "stem":
                out += OutputTemplate.stem(ofComponent: v.path.last ?? "image")   // safe already
                rest = rest[rest.index(after: close)...]
                continue
            case "dir" where v.path.count <= 1:
                // No directory: `{dir}/x` is `x` (never `/x`), `a{dir}` is `a`; a component it
                // would leave empty or hidden (`{dir}`, `{dir}.jpg`) gets `_`.
                rest = rest[rest.index(after: close)...]
                if atComponentStart { if rest.first == "/" { rest = rest.dropFirst() } else { out += "_" } }
                continue
            case "dir":
                out += v.path.dropLast().joined(separator: "/")   // each component safe already
                rest = rest[rest.index(after: close)...]
                continue
            case "name": value = v.name
            case "ext": value = v.ext
            case "key": value = v.key
            case "line": value = String(v.line)
            case "host": value = v.host
            case "w": value = String(v.width)
            default: value = String(v.height)
            }
            var safe = OutputTemplate.safe(value)
            // A value that starts a component never makes it hidden (`.ssh`, `.bashrc.jpg`).
            if atComponentStart && safe.hasPrefix(".") { safe = "_" + safe.dropFirst() }
            out += safe
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// A value that cannot change the path's shape: `/`, `\`, control characters (C0, DEL, C1) and
    /// the bidirectional overrides and isolates become `_`; `.`, `..` and an empty value become `_`;
    /// at most 120 bytes (whole characters: a file name is at most 255 bytes).
    static let maxValueBytes = 120

    /// A character that would hide or disguise a file name in a terminal: C0, DEL, C1, U+2028/9 and
    /// the bidirectional controls (U+202A-U+202E, U+2066-U+2069).
    static func unsafeInName(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    static func safe(_ value: String, limit: Int = maxValueBytes) -> String {
        var s = ""
        var bytes = 0
        for c in value.unicodeScalars {
            let kept: Unicode.Scalar = c == "/" || c == "\\" || unsafeInName(c) ? "_" : c
            bytes += UTF8.width(kept)
            if bytes > limit { break }
            s.unicodeScalars.append(kept)
        }
        if s.isEmpty || s == "." || s == ".." { s = "_" }
        return s
    }

    /// The source's file name without its extension: the URL path's last component (query and
    /// fragment dropped, percent escapes decoded), a file's base name, `image` otherwise.
    public static func stem(of source: Source) -> String {
        var last: Substring
        switch source {
        case .data: return "image"
        case .file(let path): last = path.split(separator: "/").last ?? ""
        case .http(let url):
            let afterScheme = afterSchemeOf(url)
            guard let slash = afterScheme.firstIndex(of: "/") else { return "image" }
            let path = afterScheme[slash...].prefix { $0 != "?" && $0 != "#" }
            last = path.split(separator: "/").last ?? ""
            last = Substring(percentDecoded(last))
        }
        if let dot = last.lastIndex(of: "."), dot != last.startIndex { last = last[..<dot] }
        return last.isEmpty ? "image" : String(last)
    }

    public static func host(of source: Source) -> String {
        guard case .http(let url) = source else { return "local" }
        var authority = afterSchemeOf(url).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") { return String(authority[...end]) }
        return String(authority.prefix { $0 != ":" })
    }

    /// What follows `scheme://` (the whole text when there is none).
    static func afterSchemeOf(_ url: String) -> Substring {
        let s = Substring(url)
        guard let colon = s.firstIndex(of: ":") else { return s }
        let rest = s[s.index(after: colon)...]
        return rest.hasPrefix("//") ? rest.dropFirst(2) : s
    }

    static func percentDecoded(_ s: Substring) -> String {
        var bytes: [UInt8] = []
        var i = s.utf8.startIndex
        let u = s.utf8
        while i < u.endIndex {
            if u[i] == UInt8(ascii: "%"), let h1 = u.index(i, offsetBy: 1, limitedBy: u.endIndex), h1 < u.endIndex,
               let h2 = u.index(i, offsetBy: 2, limitedBy: u.endIndex), h2 < u.endIndex,
               let v = UInt8(String(decoding: [u[h1], u[h2]], as: UTF8.self), radix: 16) {
                bytes.append(v)
                i = u.index(i, offsetBy: 3)
            } else {
                bytes.append(u[i])
                i = u.index(after: i)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The names claimed in one run: a name is given to one image only, so no line overwrites a
/// file another line of the run wrote. Claims are made in list order by the caller, and a taken
/// name `STEM.EXT` becomes `STEM-LINE.EXT` (then `STEM-LINE-2.EXT`, ...): the result depends on
/// the list only, not on which download finished first.
public struct OutputNames: Sendable {
    private var taken: Set<String> = []

    public init() {}

    /// Claims `name` (relative) for `line`, or its first free variant.
    public mutating func claim(_ name: String, line: Int) -> String {
        var candidate = name
        var n = 1
        while taken.contains(candidate) {
            candidate = OutputNames.variant(name, suffix: n == 1 ? "-\(line)" : "-\(line)-\(n)")
            n += 1
        }
        taken.insert(candidate)
        return candidate
    }

    /// `dir/stem.ext` with `suffix` after the stem (the extension is what follows the last dot of
    /// the last component).
    static func variant(_ name: String, suffix: String) -> String {
        let slash = name.lastIndex(of: "/").map { name.index(after: $0) } ?? name.startIndex
        if let dot = name[slash...].lastIndex(of: "."), dot != slash {
            return String(name[..<dot]) + suffix + name[dot...]
        }
        return name + suffix
    }
}
