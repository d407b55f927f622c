import ArgumentKit
import ImageFetch

/// `imgfetch cache sheet -o FILE [--columns N] [--size S] [--limit N] [--originals]`: one picture
/// of the newest variants (a contact sheet: libvips thumbnails joined with arrayjoin, each labelled
/// by libvips' text operation with what tells its source apart from the others', `SourceLabels`),
/// for a terminal user to open. Sources' originals only with `--originals`.
enum CacheSheetCommand {
    /// Entries on the sheet, newest first. Default 100.
    static let defaultLimit = 100

    static func run(_ parsed: ParsedCommand, _ cache: DiskCache) throws(UsageError) -> ExitCode {
        guard let output = parsed[OptionKeys.sheetOutput] else {
            throw UsageError("cache sheet needs -o FILE (.jpg, .png or .webp)", commandPath: ["cache", "sheet"])
        }
        let suffixes = ["jpg": ".jpg", "jpeg": ".jpg", "png": ".png", "webp": ".webp"]
        let ext = output.split(separator: ".").last.map { $0.lowercased() } ?? ""
        guard output.contains("."), let suffix = suffixes[ext] else {
            throw UsageError("-o \(output): the sheet is written as .jpg, .png or .webp", commandPath: ["cache", "sheet"])
        }
        // What -o is (a directory, a dangling link) is known before any work, as for get -o.
        do { _ = try FileSystem.outputKind(output) } catch {
            throw UsageError("invalid value '\(output)' for '-o': \(error.message)", commandPath: ["cache", "sheet"])
        }
        let limit = try parsed[OptionKeys.limit] ?? defaultLimit
        var layout = ContactSheetLayout()
        layout.columns = try parsed[OptionKeys.columns] ?? layout.columns
        layout.size = try parsed[OptionKeys.sheetSize] ?? layout.size
        guard layout.columns <= 100, layout.size <= 1024, limit <= 10_000 else {
            throw UsageError("at most 100 columns, --size 1024 and --limit 10000", commandPath: ["cache", "sheet"])
        }

        // The newest `limit` entries, kept in bounded memory while the listing streams; originals
        // (full-size, and beside their variants) only when asked for.
        let originals = parsed[OptionKeys.originals]
        var newest: [CacheEntry] = []
        var leftOut = 0
        cache.forEachEntry { entry in
            if entry.isOriginal && !originals {
                leftOut += 1
                return true
            }
            newest.append(entry)
            if newest.count >= 2 * limit {
                newest.sort { $0.created > $1.created }
                newest.removeLast(newest.count - limit)
            }
            return true
        }
        newest.sort { $0.created > $1.created }
        if newest.count > limit { newest.removeLast(newest.count - limit) }
        guard !newest.isEmpty else {
            Console.errorLine(leftOut == 0 ? "the cache is empty: no sheet written"
                              : "no variants in the cache, only \(originalsWord(leftOut)) (--originals puts them on the sheet): no sheet written")
            return .failed
        }
        let labels = SourceLabels.labels(newest.map(\.source))
        let items = newest.map { e in
            VipsBridge.SheetItem(bytes: cache.verifiedImage(of: e) ?? [], label: labels[e.source] ?? e.source)
        }
        do {
            let sheet = try VipsBridge.contactSheet(items, layout: layout, suffix: suffix)
            if let errno = write(sheet.bytes, to: output) {
                Console.errorLine("cannot write \(output): \(errno)")
                return .failed
            }
            let left = leftOut > 0 ? " (\(originalsWord(leftOut)) left out: --originals adds them)" : ""
            Console.err("imgfetch: \(items.count) entr\(items.count == 1 ? "y" : "ies"), \(sheet.width)x\(sheet.height) -> \(output)\(left)\n")
            return .ok
        } catch {
            Console.errorLine("cannot make the contact sheet: \(error.message)")
            return .failed
        }
    }

    /// "1 original", "N originals".
    static func originalsWord(_ n: Int) -> String { "\(n) original\(n == 1 ? "" : "s")" }

    /// Writes the sheet as `get -o` writes an image (`FileSystem.writeOutput`: a regular file is
    /// replaced atomically keeping its mode, a device or FIFO written in place, a link written
    /// through); an error message, else nil.
    static func write(_ bytes: [UInt8], to path: String) -> String? {
        do {
            try FileSystem.writeOutput(bytes, to: path)
            return nil
        } catch {
            return error.message
        }
    }
}
