/// Loads local files. A missing or unreadable file fails as `file_error` naming the path.
public struct FileLoader: Sendable {
    public init() {}

    public func load(path: String, maxBytes: Int64) throws(FetchError) -> LoadResponse {
        guard let status = FileSystem.status(path) else { throw .fileError("no such file: \(path)") }
        if status.isDirectory { throw .fileError("is a directory: \(path)") }
        // A device or FIFO has no meaningful size (/dev/zero would be read until memory runs out).
        if !status.isRegular { throw .fileError("not a regular file: \(path)") }
        if status.size > maxBytes { throw .tooLarge("\(status.size) bytes exceeds --max-bytes \(maxBytes)") }
        do {
            let bytes = try FileSystem.read(path)
            return LoadResponse(bytes: bytes, fileValidator: FileLoader.validator(status))
        } catch {
            throw .fileError(error.message)
        }
    }

    /// "mtime:size" of a file, or nil when it is gone.
    public static func validator(forPath path: String) -> String? { FileSystem.status(path).map(validator) }

    static func validator(_ status: FileSystem.Status) -> String { "file:\(status.modified):\(status.size)" }
}
