import ArgumentKit
import ImageFetch

extension GetCommand {
    enum Destination {
        /// `-o FILE`; `createDirs`: its missing directories are made first (curl's `--create-dirs`);
        /// `keepingExisting`: a file already there is kept (`--no-clobber`).
        case stdout, file(String, createDirs: Bool, keepingExisting: Bool), none

        /// Where `get`'s image goes: `-o FILE` (checked before anything is fetched), stdout (never a
        /// terminal), or nowhere (`--json` alone).
        static func from(_ parsed: ParsedCommand, output: String?, json: Bool) throws(UsageError) -> Destination {
            if let output, output != "-" {
                // A directory or a dangling link is a bad -o value: said before anything is fetched.
                do { _ = try FileSystem.outputKind(output) } catch {
                    throw UsageError("invalid value '\(output)' for '-o': \(error.message)", commandPath: ["get"])
                }
                return .file(output, createDirs: parsed[OptionKeys.createDirs], keepingExisting: parsed[OptionKeys.noClobber])
            }
            guard output == "-" || !json else { return .none }
            if Console.stdoutIsTerminal {
                throw UsageError("refusing to write binary image data to a terminal: use -o FILE, or redirect stdout")
            }
            return .stdout
        }

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
