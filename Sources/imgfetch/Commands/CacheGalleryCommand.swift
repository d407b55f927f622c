import ArgumentKit
import ImageFetch
#if canImport(Glibc)
import Glibc
#endif

/// `imgfetch cache gallery [-o DIR] [--copy] [--page-size N] [--originals]`: static HTML pages of
/// the cache's variants (sources' originals too with `--originals`: full-size, and beside their
/// variants), streamed in key order one page at a time (memory bounded by a page).
/// The pictures are the cached files themselves (file:// URLs into the cache), or copies in
/// `DIR/images/` with `--copy`, so the gallery survives the cache.
enum CacheGalleryCommand {
    /// Entries per page. Default 200.
    static let defaultPageSize = 200

    /// The empty file that marks a directory as a gallery of imgfetch's (it may then be rewritten).
    static let marker = ".imgfetch-gallery"

    static func run(_ parsed: ParsedCommand, _ cache: DiskCache) throws(UsageError) -> ExitCode {
        let pageSize = try parsed[OptionKeys.pageSize] ?? defaultPageSize
        let copy = parsed[OptionKeys.copy], originals = parsed[OptionKeys.originals]
        let output = absolute(parsed[OptionKeys.galleryOutput] ?? "imgfetch-gallery")
        let cacheRoot = realPath(cache.directory) ?? absolute(cache.directory)
        // Only a directory the gallery made (its marker file) or an empty one is written into: the
        // pages replace index.html and remove page-N.html, which may be a user's own files.
        if let names = Directory(realPath(output) ?? output)?.sortedNames(), !names.isEmpty, !names.contains(marker) {
            Console.errorLine("\(TerminalText.escaped(output)): not empty and not a gallery of imgfetch's (no \(marker)); give an empty or new directory")
            return .usage
        }
        do {
            try FileSystem.makeDirectories(output)
            try FileSystem.writeAtomically([], to: output + "/" + marker, temporaryDirectory: output, sync: false)
            if copy {
                // Copies go into DIR/images itself, never through a link planted there.
                if FileSystem.linkStatus(output + "/images")?.isSymbolicLink == true {
                    Console.errorLine("\(TerminalText.escaped(output + "/images")): is a symbolic link; the copies are not written through it")
                    return .failed
                }
                try FileSystem.makeDirectories(output + "/images")
            }
        } catch {
            Console.errorLine("cannot write the gallery: \(error.message)")
            return .failed
        }
        let now = FileSystem.now()
        var pending: [GalleryPage.Item] = []
        var page = 1
        var total = 0
        var leftOut = 0
        var failure: String?

        func write(_ items: [GalleryPage.Item], hasNext: Bool) {
            let html = GalleryPage(items: items, page: page, hasNext: hasNext, directory: cache.directory, now: now).html()
            if let error = save(Array(html.utf8), to: output + "/" + GalleryPage.fileName(page: page), temporaryDirectory: output) {
                failure = failure ?? error
            }
        }

        cache.forEachEntry { entry in
            if entry.isOriginal && !originals {
                leftOut += 1
                return true
            }
            let path = cache.dataPath(entry.key, format: entry.format)
            let name = (path.split(separator: "/").last).map(String.init) ?? entry.key
            var url = "file://" + percentEncodePath(cacheRoot + String(path.dropFirst(cache.directory.count)))
            if copy {
                guard let bytes = cache.verifiedImage(of: entry) else { return true }  // torn or removed meanwhile
                if let error = save(bytes, to: output + "/images/" + name, temporaryDirectory: output) {
                    failure = error
                    return false
                }
                url = "images/" + name
            }
            // A full page is written once the next entry shows there is a next page.
            if pending.count == pageSize {
                write(pending, hasNext: true)
                pending.removeAll(keepingCapacity: true)
                page += 1
            }
            pending.append(GalleryPage.Item(entry: entry, imageURL: url))
            total += 1
            return failure == nil
        }
        write(pending, hasNext: false)
        // Pages left by an earlier, larger gallery would link to entries no longer there.
        var stale = page + 1
        while FileSystem.remove(output + "/" + GalleryPage.fileName(page: stale)) { stale += 1 }
        if let failure {
            Console.errorLine("cannot write the gallery: \(failure)")
            return .failed
        }
        Console.line(output + "/index.html")
        let left = leftOut > 0 ? " (\(CacheSheetCommand.originalsWord(leftOut)) left out: --originals adds them)" : ""
        Console.err("imgfetch: \(total) entr\(total == 1 ? "y" : "ies") on \(page) page\(page == 1 ? "" : "s")\(copy ? ", images copied" : "")\(left)\n")
        return .ok
    }

    /// Writes a file atomically; the error message, else nil.
    static func save(_ bytes: [UInt8], to path: String, temporaryDirectory: String) -> String? {
        do {
            try FileSystem.writeAtomically(bytes, to: path, temporaryDirectory: temporaryDirectory, sync: false)
            return nil
        } catch {
            return error.message
        }
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        let cwd = Source.currentDirectory()
        return (cwd.hasSuffix("/") ? cwd : cwd + "/") + path
    }

    /// A path as the path of a file:// URL: every byte but unreserved characters and `/` percent-encoded.
    static func percentEncodePath(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out
    }
}
