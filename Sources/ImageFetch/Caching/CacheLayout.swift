/// The names imgfetch makes in a cache directory: the one list every command checks a name against.
/// Nothing else in a cache directory is ever removed, and a directory holding anything else is not
/// taken for a cache (see `DiskCache.claim()`).
///
/// ```
/// DIR/CACHEDIR.TAG              the Cache Directory Tagging mark (https://bford.info/cachedir/)
/// DIR/v1/                       the layout version
/// DIR/v1/<2 hex>/<key>.meta     an entry's metadata (key: 64 lowercase hex digits)
/// DIR/v1/<2 hex>/<key>.<ext>    its image (ext: jpg png webp avif gif img)
/// DIR/v1/tmp/.tmp-<pid>-<n>     a write in progress
/// DIR/v1/partial/<key>.part     the first bytes of a download that ended early, to be resumed,
/// DIR/v1/partial/<key>.pmeta    and what they are (`PartialSlot`)
/// DIR/v1/down/<32 hex>          an origin marked down (`HostDownMarks`)
/// DIR/v1/hold/<32 hex>          an origin held after a 429/503 or a failure (`OriginHoldMarks`),
/// DIR/v1/hold/<32 hex>.lock     and the lock of its paced starts
/// DIR/v1/policy/<32 hex>       an origin's robots.txt or tdmrep.json as fetched (`PolicyFileStore`),
/// DIR/v1/policy/<32 hex>.lock  and the lock of its fetch
/// DIR/v1/lowdata/<key>          the low-data entry of the request whose output key it is (`LowDataIndex`)
/// DIR/v1/usage, DIR/v1/lock     the size total (a hint) and the eviction lock
/// DIR/v1/evict                  eviction candidates, oldest first (a hint, validated, rebuilt by a scan)
/// DIR/v1/evictions              running totals of evictions (a hint)
/// DIR/v1/scanning               marks a candidate scan in the background (stale after 2 minutes)
/// DIR/v1/secret                 the per-cache secret of credential digests (with its own
///                               `.tmp-<pid>-<n>` in `v1/` while it is made)
/// ```
public enum CacheLayout {
    /// The layout version's directory.
    public static let version = "v1"
    /// The Cache Directory Tagging file; backup tools skip a directory that has it.
    public static let tagName = "CACHEDIR.TAG"
    /// The first line of a tag, exactly as the specification gives it.
    public static let tagSignature = "Signature: 8a477f597d28d172789f06886806bc55"
    static let tagContents = tagSignature + "\n"
        + "# This file is a cache directory tag created by imgfetch.\n"
        + "# For information about cache directory tags, see https://bford.info/cachedir/\n"

    /// Names allowed at the top of a cache directory.
    public static let rootNames: Set<String> = [tagName, version]
    /// Names allowed in `v1/` besides the shards. `vips` was made by an earlier imgfetch (a directory
    /// of links to libvips modules); it is never read now, but it marks an old cache as imgfetch's.
    static let temporaryDirectory = "tmp"
    static let usageFile = "usage"
    static let lockFile = "lock"
    static let candidatesFile = "evict"
    static let evictionTotalsFile = "evictions"
    static let scanMarkerFile = "scanning"
    static let legacyModuleDirectory = "vips"
    static let secretFile = "secret"
    /// The regular files of `v1/` besides the shards (each must be a regular file, never a link).
    static let hintFiles: Set<String> = [usageFile, lockFile, secretFile, candidatesFile, evictionTotalsFile, scanMarkerFile]

    /// The extensions an entry's image may have (`ImageFormat.fileExtension`, or `img`).
    static let imageExtensions: Set<String> = Set(ImageFormat.allCases.map(\.fileExtension))

    /// A cache key as it appears in file names: exactly 64 lowercase hex digits.
    public static func isKey<S: StringProtocol>(_ s: S) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy(isLowerHex)
    }

    /// A shard directory's name: two lowercase hex digits.
    static func isShard(_ name: String) -> Bool { name.utf8.count == 2 && name.utf8.allSatisfy(isLowerHex) }

    /// An entry file's key and extension when `name` is `<key>.meta` or `<key>.<image ext>` in
    /// shard `shard`; nil for any other name.
    static func entryFile(_ name: String, inShard shard: String) -> (key: Substring, ext: Substring)? {
        guard let dot = name.firstIndex(of: ".") else { return nil }
        let key = name[..<dot], ext = name[name.index(after: dot)...]
        guard isKey(key), key.hasPrefix(shard), ext == "meta" || imageExtensions.contains(String(ext)) else { return nil }
        return (key, ext)
    }

    /// A temporary file's name: `.tmp-<pid>-<n>` (`FileSystem.temporaryName()`).
    static func isTemporary(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == ".tmp"
            && parts[1...].allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }
    }

    /// Whether `bytes` is a valid tag: it starts with the signature.
    static func isTag(_ bytes: [UInt8]) -> Bool { bytes.starts(with: Array(tagSignature.utf8)) }

    private static func isLowerHex(_ c: UInt8) -> Bool { (48...57).contains(c) || (97...102).contains(c) }
}
