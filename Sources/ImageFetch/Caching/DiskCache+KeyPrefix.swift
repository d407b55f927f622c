/// Keys users can type: any unique prefix of at least `minimumKeyPrefix` hex digits names an
/// entry, as git does with commits (`cache ls` shows 12 digits).
extension DiskCache {
    /// The shortest key prefix accepted. Default 6 hex digits.
    public static let minimumKeyPrefix = 6

    /// Whether `text` is a key prefix a user may type: `minimumKeyPrefix` to 64 hex digits (any case).
    public static func isKeyPrefix(_ text: String) -> Bool {
        (minimumKeyPrefix...64).contains(text.utf8.count) && text.utf8.allSatisfy(CacheKeyName.isHexDigit)
    }

    /// The committed keys (with a `.meta` file) that start with `prefix`, sorted; at most `limit` of
    /// them. Only the one shard directory the prefix names is read, and no link is followed.
    /// Empty when `prefix` is not a key prefix.
    public func keys(withPrefix prefix: String, limit: Int = 16) -> [String] {
        let prefix = prefix.lowercased()
        guard DiskCache.isKeyPrefix(prefix), limit > 0,
              let rootDirectory = Directory(root),
              let shard = Directory(in: rootDirectory, String(prefix.prefix(2))) else { return [] }
        var keys: [String] = []
        shard.forEachName { name in
            if let key = CacheKeyName.key(ofMeta: name), key.hasPrefix(prefix) { keys.append(key) }
            return true
        }
        keys.sort()
        return Array(keys.prefix(limit))
    }
}

/// File names in a shard directory: `<64 lowercase hex>.meta` and `<64 lowercase hex>.<ext>`.
/// Anything else found there is not an entry (a scan skips it).
enum CacheKeyName {
    static func isHexDigit(_ c: UInt8) -> Bool {
        (48...57).contains(c) || (97...102).contains(c) || (65...70).contains(c)
    }

    static func isLowerHexDigit(_ c: UInt8) -> Bool { (48...57).contains(c) || (97...102).contains(c) }

    /// The first 16 hex digits of a validated key as an integer (for sorting keys cheaply).
    static func leadingValue(_ key: String) -> UInt64 {
        var value: UInt64 = 0
        for c in key.utf8.prefix(16) {
            value = value << 4 | UInt64(c <= 57 ? c - 48 : c - 87)
        }
        return value
    }

    /// The key of `<key>.meta`, else nil.
    static func key(ofMeta name: String) -> String? {
        guard name.utf8.count == 69, name.hasSuffix(".meta") else { return nil }
        let key = String(name.utf8.prefix(64))!
        return key.utf8.allSatisfy(isLowerHexDigit) ? key : nil
    }

    /// The key and extension of an image file `<key>.<ext>` (ext 1-8 lowercase letters or digits,
    /// not `meta`), else nil.
    static func keyAndExtension(ofData name: String) -> (key: String, ext: String)? {
        let utf8 = name.utf8
        guard (66...73).contains(utf8.count), utf8[utf8.index(utf8.startIndex, offsetBy: 64)] == UInt8(ascii: ".") else { return nil }
        let key = String(utf8.prefix(64))!
        let ext = String(utf8.dropFirst(65))!
        guard ext != "meta", key.utf8.allSatisfy(isLowerHexDigit),
              ext.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) }) else { return nil }
        return (key, ext)
    }
}
