#if canImport(Glibc)
import Glibc
#endif

/// Opening the directory, and telling imgfetch's cache directories from other directories.
///
/// A directory imgfetch creates is marked with `CACHEDIR.TAG` at once. One an earlier imgfetch made
/// (no tag, but only names `CacheLayout` lists) is adopted: the first store, or any `cache`
/// command, writes the tag. Removal commands ask `claim()` first and refuse a directory that is
/// neither tagged nor adoptable.
extension DiskCache {
    /// `v1`, opened without following a link there; nil when it does not exist. Throws when it
    /// cannot be used (a link, a file, no permission).
    func openVersion() throws(FileSystem.Failure) -> DirectoryHandle? {
        do {
            return try DirectoryHandle.open(root, followingLink: false)
        } catch {
            if error.errno == ENOENT { return nil }
            throw error
        }
    }

    /// `v1`, made (with the cache directory and its tag) when missing. Checks the tag once per process.
    func createVersion() throws(FileSystem.Failure) -> DirectoryHandle {
        if let version = try openVersion() {
            if !tagChecked.exchange(true, ordering: .relaxed) { _ = claim() }
            return version
        }
        try FileSystem.makeDirectories(directory)
        let top = try DirectoryHandle.open(directory, followingLink: true)
        tagChecked.store(true, ordering: .relaxed)
        if !hasTag(top), top.list().isEmpty { writeTag(top) }  // a new cache directory: mark it
        else { _ = claim() }
        return try top.subdirectory(CacheLayout.version, create: true)
    }

    /// Whether the directory is imgfetch's, tagging it when an earlier imgfetch made it: nil when it
    /// is (or is absent or empty), else the first name in it imgfetch does not make (as
    /// `v1/ab/notes.txt`), which is why nothing may be removed from it.
    public func claim() -> String? {
        guard let top = try? DirectoryHandle.open(directory, followingLink: true) else { return nil }
        if hasTag(top) { return nil }
        if let foreign = foreignName(in: top) { return foreign }
        if !top.list().isEmpty { writeTag(top) }
        return nil
    }

    func hasTag(_ top: DirectoryHandle) -> Bool {
        guard let (bytes, _) = try? top.read(CacheLayout.tagName) else { return false }
        return CacheLayout.isTag(bytes)
    }

    func writeTag(_ top: DirectoryHandle) {
        // In place rather than renamed: a temporary file at the top would not be a name of the layout.
        top.overwrite(Array(CacheLayout.tagContents.utf8), at: CacheLayout.tagName)
    }

    /// The first name under `top` that is not in imgfetch's layout, or a link where a directory of the
    /// layout should be; nil when every name is imgfetch's.
    func foreignName(in top: DirectoryHandle) -> String? {
        for name in top.list() where !CacheLayout.rootNames.contains(name) { return name }
        let v = CacheLayout.version
        guard top.status(v) != nil else { return nil }
        guard let version = try? top.subdirectory(v) else { return v }
        for name in version.list() {
            let path = v + "/" + name
            if CacheLayout.isShard(name) {
                guard let shard = try? version.subdirectory(name) else { return path }
                for file in shard.list() where CacheLayout.entryFile(file, inShard: name) == nil { return path + "/" + file }
            } else if name == CacheLayout.temporaryDirectory {
                guard let temporary = try? version.subdirectory(name) else { return path }
                for file in temporary.list() where !CacheLayout.isTemporary(file) { return path + "/" + file }
            } else if name == PartialSlot.directoryName {
                guard let partials = try? version.subdirectory(name) else { return path }
                for file in partials.list() where !PartialSlot.isPartialName(file) { return path + "/" + file }
            } else if name == HostDownMarks.directoryName {
                guard let marks = try? version.subdirectory(name) else { return path }
                for file in marks.list() where !HostDownMarks.isName(file) && !CacheLayout.isTemporary(file) { return path + "/" + file }
            } else if name == OriginHoldMarks.directoryName {
                guard let holds = try? version.subdirectory(name) else { return path }
                for file in holds.list() where !OriginHoldMarks.isName(file) && !CacheLayout.isTemporary(file) { return path + "/" + file }
            } else if name == PolicyFileStore.directoryName {
                guard let files = try? version.subdirectory(name) else { return path }
                for file in files.list() where !PolicyFileStore.isName(file) { return path + "/" + file }
            } else if name == LowDataIndex.directoryName {
                guard let index = try? version.subdirectory(name) else { return path }
                for file in index.list() where !CacheLayout.isKey(file) && !CacheLayout.isTemporary(file) { return path + "/" + file }
            } else if name == CacheLayout.legacyModuleDirectory {
                guard version.status(name)?.isDirectory == true else { return path }
            } else if CacheLayout.hintFiles.contains(name) || CacheLayout.isTemporary(name) {
                guard version.status(name)?.isRegular == true else { return path }
            } else {
                return path
            }
        }
        return nil
    }
}
