import ImageFetch

/// `--shard-tar`: the shard's ok lines as a webdataset tar, `DIR/KKKKK-of-NNNNN.tar`, written as the
/// results arrive (`Ustar`, through an `AtomicFile`: renamed into place by `commit` only). Each ok
/// line is two adjacent members, `KEY.EXT` (the output image) then `KEY.json` (its record): KEY is
/// the line number zero-padded to 9 digits, or the line's own key (`--key-column`) when it has
/// one, checked (`refusal`). Nothing of a member is kept once written. Used from one task.
final class ShardTar {
    private let file: AtomicFile
    /// The members' modification time: the run's start.
    private let mtime: Int64
    /// The lines' own keys given so far, with their line (a key names one sample only).
    private var ownKeys: [String: Int] = [:]
    /// A member that could not be written: the archive is not committed.
    private var broken: Ustar.Refusal?
    /// The longest own key, and the bytes it may use (webdataset splits a name at its first dot).
    static let maxKeyBytes = 64

    init(path: String, mtime: Double) throws(FileSystem.Failure) {
        file = try AtomicFile(path: path, hashing: true)
        self.mtime = Int64(mtime)
    }

    /// The key of `line`'s sample: `own` (the line's `--key-column` value) or the line padded to 9 digits.
    static func key(line: Int, own: String?) -> String { own ?? ShardDirectory.padded(line, 9) }

    /// Why `line` cannot be a sample (its own key is not `[A-Za-z0-9_-]{1,64}`, or another line's;
    /// the image is larger than a member holds): the failure the line becomes. Claims the key.
    func refusal(line: Int, own: String?, size: Int) -> FetchError? {
        if let own {
            guard Self.isValidKey(own) else {
                return .fileError("the key \(ListParser.quoted(own, limit: 80, marks: true)) cannot name a tar member: it must be 1 to \(Self.maxKeyBytes) bytes of A-Z, a-z, 0-9, '_' and '-'")
            }
            if let first = ownKeys[own], first != line {
                return .fileError("the key '\(own)' is line \(first)'s already: a tar member names one sample")
            }
            ownKeys[own] = line
        }
        if size > Ustar.maxSize { return .fileError(Ustar.Refusal.tooLarge(size).message) }
        return nil
    }

    static func isValidKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        return !bytes.isEmpty && bytes.count <= maxKeyBytes && bytes.allSatisfy { b in
            (48...57).contains(b) || (65...90).contains(b) || (97...122).contains(b) || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
        }
    }

    /// The extension of an image of `format`: the format's file extension (`jpg` for jpeg), else its
    /// own name when that is 1-10 lowercase letters or digits, else `img`.
    static func fileExtension(_ format: String) -> String {
        if let known = ImageFormat(name: format), known != .original, known != .auto { return known.fileExtension }
        let bytes = Array(format.utf8)
        let plain = !bytes.isEmpty && bytes.count <= 10 && bytes.allSatisfy { (48...57).contains($0) || (97...122).contains($0) }
        return plain ? format : "img"
    }

    /// The largest image written with its headers in one piece.
    static let coalescedImageLimit = 64 << 10

    /// Appends `key`'s two members: the image, then the record (its text and a line end). A refusal
    /// (`refusal` vetted the key and the size first) leaves the archive unfinished: `commit` throws it.
    func append(key: String, image: ProcessedImage, record: String) {
        guard broken == nil else { return }
        let json = Array((record + "\n").utf8)
        let head: [UInt8]
        var tail = [UInt8](repeating: 0, count: Ustar.padding(image.bytes.count))
        do {
            head = try Ustar.header(name: key + "." + Self.fileExtension(image.format), size: image.bytes.count, mtime: mtime)
            tail += try Ustar.header(name: key + ".json", size: json.count, mtime: mtime)
        } catch {
            broken = error
            return
        }
        tail += json
        tail += [UInt8](repeating: 0, count: Ustar.padding(json.count))
        // A thumbnail-sized image goes out with the pair in one write (a copy of a few KB costs less
        // than two system calls); a larger one as it is, not copied: its header, it, the rest.
        if image.bytes.count <= Self.coalescedImageLimit {
            file.append(head + image.bytes + tail)
        } else {
            file.append(head)
            file.append(image.bytes)
            file.append(tail)
        }
    }

    /// Ends the archive (two zero blocks) and renames it into place: a message when it cannot.
    func commit() -> String? {
        if let broken {
            file.discard()
            return broken.message
        }
        file.append(Ustar.end)
        do { try file.commit() } catch { return error.message }
        return nil
    }

    func discard() { file.discard() }

    /// The hex SHA-256 of the archive as written (the marker's `tar_sha256`).
    var sha256: String? { file.sha256 }
}
