#if canImport(Glibc)
import Glibc
#endif

/// Keyed digests of credentials, so a cache key can tell two passwords apart without the password,
/// or any unsalted hash of it, ever being written down (keys are file names others may read).
///
/// The digest is HMAC-SHA256 under a random 32-byte secret that belongs to one cache directory
/// (`v1/secret`, mode 0600, owned by the user), read or created on first use only: a cache hit of a
/// source without credentials never touches it. Each kind of credential is digested apart (the
/// kind's name and a NUL come first), so a user-info string and a header of the same text differ.
/// A missing secret is created atomically (a 0600 temporary file, then `link`, which never replaces
/// one another process made first); one that is a link, not a regular file, not the user's, readable
/// by others, or not 32 bytes is an error, never used and never replaced.
public final class CredentialDigest: Sendable {
    /// What a credential is: its digest is computed under this name.
    public struct Kind: Sendable, Hashable {
        public let name: String
        public init(_ name: String) { self.name = name }
        /// The user information of a URL (`user:password` in `http://user:password@host/`).
        public static let userinfo = Kind("userinfo")
    }

    /// Where the secret lives; nil for a fixed secret.
    public let secretPath: String?
    private let secret: Lock<[UInt8]?>

    /// The secret kept at `path`, read (or created) on first use.
    public init(secretFile path: String) {
        secretPath = path
        secret = Lock(nil)
    }

    /// A fixed secret (tests; caches that live in memory only).
    public init(secret bytes: [UInt8]) {
        secretPath = nil
        secret = Lock(bytes)
    }

    /// A random secret for this process only: for caches that keep nothing on disk.
    public static let ephemeral = CredentialDigest(secret: (try? CredentialDigest.randomBytes(32)) ?? [])

    /// The hex HMAC-SHA256 of `value` as a credential of `kind`. Creates the secret when missing;
    /// throws `cacheUnavailable` naming the file when it cannot be read, made, or trusted.
    public func hex(_ kind: Kind, _ value: String) throws(FetchError) -> String {
        SHA256.hexString(SHA256.hmac(key: try key(), message: Array(kind.name.utf8) + [0] + Array(value.utf8)))
    }

    /// Whether a secret exists (read-only lookups: without one, nothing with credentials was stored).
    public var secretExists: Bool {
        if secret.withLock({ $0 != nil }) { return true }
        var st = stat()
        return secretPath.map { lstat($0, &st) == 0 } ?? false
    }

    func key() throws(FetchError) -> [UInt8] {
        if let known = secret.withLock({ $0 }) { return known }
        guard let path = secretPath else { throw .cacheUnavailable("no credential secret") }
        try CredentialDigest.refuseLinkedDirectory(of: path)
        let loaded: [UInt8]
        if let existing = try CredentialDigest.read(path) {
            loaded = existing
        } else {
            try CredentialDigest.create(path)
            guard let made = try CredentialDigest.read(path) else {
                throw .cacheUnavailable("credential secret \(path): vanished after it was created")
            }
            loaded = made
        }
        secret.withLock { $0 = loaded }
        return loaded
    }

    static let size = 32

    /// The secret at `path`, nil when there is none; throws when it exists but cannot be trusted.
    static func read(_ path: String) throws(FetchError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw unusable(path, errno == ELOOP ? "is a symbolic link" : String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw unusable(path, String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw unusable(path, "not a regular file") }
        guard st.st_uid == geteuid() else { throw unusable(path, "owned by another user (uid \(st.st_uid))") }
        guard st.st_mode & 0o077 == 0 else { throw unusable(path, "readable or writable by others (mode \(String(st.st_mode & 0o777, radix: 8)))") }
        guard st.st_size == off_t(size) else { throw unusable(path, "\(st.st_size) bytes, not \(size)") }
        var bytes = [UInt8](repeating: 0, count: size)
        var count = 0
        while count < size {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, size - count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw unusable(path, "cut short") }
            count += n
        }
        return bytes
    }

    /// Makes a new secret at `path` unless one appears there first (another process): never replaces.
    static func create(_ path: String) throws(FetchError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
        do { try FileSystem.makeDirectories(directory) } catch {
            throw .cacheUnavailable("cannot use the cache directory: \(error.message)")
        }
        try refuseLinkedDirectory(of: path)
        let bytes: [UInt8]
        do { bytes = try randomBytes(size) } catch { throw unusable(path, "no random bytes: \(String(cString: strerror(error.errno)))") }
        let tmp = directory + "/" + FileSystem.temporaryName()
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw unusable(path, "cannot create \(tmp): \(String(cString: strerror(errno)))") }
        defer { unlink(tmp) }
        var failure = FileSystem.writeAll(fd: fd, bytes)
        if failure == nil, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == nil, errno != EINTR { failure = errno }
        if let failure { throw unusable(path, "cannot write \(tmp): \(String(cString: strerror(failure)))") }
        // link() is O_EXCL for a complete file: it fails with EEXIST instead of replacing.
        if link(tmp, path) != 0 && errno != EEXIST {
            throw unusable(path, "cannot create: \(String(cString: strerror(errno)))")
        }
    }

    /// The secret's own directory (`v1`) must be a real directory: a symbolic link planted there would
    /// make the secret be read from, or created in, a directory outside the cache.
    static func refuseLinkedDirectory(of path: String) throws(FetchError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        var st = stat()
        guard lstat(String(path[..<slash]), &st) == 0 else { return }  // missing: create() makes it
        if (st.st_mode & S_IFMT) == S_IFLNK { throw unusable(path, "its directory is a symbolic link") }
    }

    static func unusable(_ path: String, _ reason: String) -> FetchError {
        .cacheUnavailable("credential secret \(path): \(reason); remove it and imgfetch makes a new one")
    }

    struct RandomFailure: Error { var errno: Int32 }

    /// `count` bytes from the kernel's CSPRNG (`/dev/urandom`).
    static func randomBytes(_ count: Int) throws(RandomFailure) -> [UInt8] {
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RandomFailure(errno: errno) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, count - filled) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw RandomFailure(errno: n == 0 ? EIO : errno) }
            filled += n
        }
        return bytes
    }
}
