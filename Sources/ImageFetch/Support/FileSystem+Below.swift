#if canImport(Glibc)
import Glibc
#endif

extension FileSystem {
    /// Writes `bytes` at `relative` under `directory` (`--output-dir`), atomically, never leaving it:
    /// `directory` itself is the user's and may be a link; every component of `relative` is reached
    /// from the descriptor of the one before (`openat` with `O_NOFOLLOW`), so a link planted on the
    /// way (or swapped in while the image downloads) is refused with ELOOP, not followed. With
    /// `createDirectories`, missing directories on the way are made (0755). `relative` has no empty,
    /// `.` or `..` component.
    ///
    /// The last component is replaced as `writeOutput` replaces a regular file (the same function:
    /// its mode, and owner as root, are kept). Its name came from the network, not from the user, so
    /// only a new name or a regular file is written: a link there (ELOOP), a directory, FIFO or
    /// device (EINVAL) is refused, never written through or into. `keepingExisting` keeps a file
    /// already there (created exclusively, as `replaceAtomically` says): false is returned then.
    @discardableResult
    public static func writeOutput(_ bytes: [UInt8], below directory: String, _ relative: String,
                                   createDirectories: Bool, keepingExisting: Bool = false) throws(Failure) -> Bool {
        var components = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let name = components.popLast(), !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
              !name.isEmpty, name != ".", name != ".." else {
            throw Failure(errno: EINVAL, path: directory + "/" + relative, operation: "write")
        }
        var handle = try DirectoryHandle.open(directory, followingLink: true)
        for component in components {
            handle = try handle.subdirectory(component, create: createDirectories)
        }
        if let status = handle.status(name), !status.isRegular {
            throw Failure(errno: status.isSymbolicLink ? ELOOP : EINVAL, path: handle.child(name), operation: "write (not a regular file)")
        }
        let tmp = temporaryName()
        return try replaceAtomically(bytes, at: handle.fd, name, temporary: tmp, temporaryPath: handle.child(tmp),
                                     display: handle.child(name), keepingExisting: keepingExisting)
    }
}
