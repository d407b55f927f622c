import ImageFetch

extension GetCommand {
    enum Destination {
        /// `-o FILE`; `createDirs`: its missing directories are made first (curl's `--create-dirs`);
        /// `keepingExisting`: a file already there is kept (`--no-clobber`).
        case stdout, file(String, createDirs: Bool, keepingExisting: Bool), none

        /// Writes the image: whether a file already there was kept, or a message on failure. A
        /// regular file is replaced atomically (never half-written); a device, FIFO or descriptor
        /// name is written in place (`FileSystem.writeOutput`).
        func write(_ bytes: [UInt8]) -> (kept: Bool, problem: String?) {
            switch self {
            case .none: return (false, nil)
            case .stdout: return (false, Console.write(fd: 1, bytes) ? nil : "cannot write the image to stdout")
            case .file(let path, let createDirs, let keepingExisting):
                let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
                do {
                    if createDirs, !parent.isEmpty { try FileSystem.makeDirectories(parent) }
                    return (!(try FileSystem.writeOutput(bytes, to: path, keepingExisting: keepingExisting)), nil)
                } catch {
                    let hint = !createDirs && !parent.isEmpty && !FileSystem.isDirectory(parent) ? " (--create-dirs makes its directories)" : ""
                    return (false, "cannot write \(path): \(error.message)\(hint)")
                }
            }
        }
    }
}
