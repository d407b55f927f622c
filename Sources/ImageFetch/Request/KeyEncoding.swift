/// The canonical bytes of an `Encodable` value, which persistent keys digest (`CacheKey`).
///
/// A key is the synthesised encoding of whole values (`Processing`, `NetworkOptions.KeyPart`,
/// `EntryKey`): a stored property added to them counts at once, and nobody assembles a key string
/// field by field. The form is deterministic and unambiguous: every scalar is tagged and every
/// string length-prefixed; the fields of a keyed value are written sorted by name, so reordering
/// declarations keeps every key. A `nil` optional is left out entirely (`encodeIfPresent`), so a new
/// optional option keeps the keys of requests that do not use it; a renamed property changes them.
enum KeyEncoding {
    static func bytes<T: Encodable>(_ value: T) -> [UInt8] {
        let root = KeyNode()
        try? value.encode(to: KeyTreeEncoder(node: root))   // KeyTreeEncoder never throws
        var out: [UInt8] = []
        root.write(to: &out)
        return out
    }

    /// The SHA-256 (hex) of `bytes(value)`.
    static func digest<T: Encodable>(_ value: T) -> String { SHA256.hex(bytes(value)) }
}

/// One value of the tree the encoder builds: a scalar, a keyed or an unkeyed container.
/// Local to one `KeyEncoding.bytes` call (a class so that nested containers fill in later).
final class KeyNode {
    enum Kind { case empty, scalar([UInt8]), keyed, unkeyed }
    var kind = Kind.empty
    var children: [(key: String, node: KeyNode)] = []

    func child(_ key: String) -> KeyNode {
        let node = KeyNode()
        children.append((key, node))
        return node
    }

    func write(to out: inout [UInt8]) {
        switch kind {
        case .empty: out.append(UInt8(ascii: "n"))
        case .scalar(let bytes): out += bytes
        case .keyed:
            out.append(UInt8(ascii: "{"))
            for (key, node) in children.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                KeyNode.string(key, into: &out)
                node.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .unkeyed:
            out.append(UInt8(ascii: "["))
            for (_, node) in children { node.write(to: &out) }
            out.append(UInt8(ascii: "]"))
        }
    }

    static func string(_ s: String, into out: inout [UInt8]) {
        out += Array("s\(s.utf8.count):".utf8)
        out += Array(s.utf8)
    }

    func set(_ tag: Character, _ text: String) { kind = .scalar(Array("\(tag)\(text);".utf8)) }
    func set(string s: String) {
        var bytes: [UInt8] = []
        KeyNode.string(s, into: &bytes)
        kind = .scalar(bytes)
    }
}

struct KeyTreeEncoder: Encoder {
    let node: KeyNode
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.kind = .keyed
        return KeyedEncodingContainer(KeyedKeyContainer<Key>(node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.kind = .unkeyed
        return UnkeyedKeyContainer(node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleKeyContainer(node: node) }
}

/// Scalars, for the three containers: each writes into the node it is given.
private func encodeScalar<T: Encodable>(_ value: T, into node: KeyNode) {
    try? value.encode(to: KeyTreeEncoder(node: node))
}

struct SingleKeyContainer: SingleValueEncodingContainer {
    let node: KeyNode
    var codingPath: [any CodingKey] = []
    mutating func encodeNil() { node.kind = .empty }
    mutating func encode(_ v: Bool) { node.set("b", v ? "1" : "0") }
    mutating func encode(_ v: String) { node.set(string: v) }
    mutating func encode(_ v: Double) { node.set("d", String(v.bitPattern, radix: 16)) }
    mutating func encode(_ v: Float) { node.set("d", String(Double(v).bitPattern, radix: 16)) }
    mutating func encode(_ v: Int) { node.set("i", String(v)) }
    mutating func encode(_ v: Int8) { node.set("i", String(v)) }
    mutating func encode(_ v: Int16) { node.set("i", String(v)) }
    mutating func encode(_ v: Int32) { node.set("i", String(v)) }
    mutating func encode(_ v: Int64) { node.set("i", String(v)) }
    mutating func encode(_ v: UInt) { node.set("i", String(v)) }
    mutating func encode(_ v: UInt8) { node.set("i", String(v)) }
    mutating func encode(_ v: UInt16) { node.set("i", String(v)) }
    mutating func encode(_ v: UInt32) { node.set("i", String(v)) }
    mutating func encode(_ v: UInt64) { node.set("i", String(v)) }
    mutating func encode<T: Encodable>(_ v: T) { try? v.encode(to: KeyTreeEncoder(node: node)) }
}

struct KeyedKeyContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: KeyNode
    var codingPath: [any CodingKey] = []
    mutating func encodeNil(forKey key: Key) { _ = node.child(key.stringValue) }
    mutating func encode(_ v: Bool, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode(_ v: String, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode(_ v: Double, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode(_ v: Float, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode(_ v: Int, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode(_ v: Int8, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode(_ v: Int16, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode(_ v: Int32, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode(_ v: Int64, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode(_ v: UInt, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode(_ v: UInt8, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode(_ v: UInt16, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode(_ v: UInt32, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode(_ v: UInt64, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }
    mutating func encode<T: Encodable>(_ v: T, forKey key: Key) { encodeScalar(v, into: node.child(key.stringValue)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyTreeEncoder(node: node.child(key.stringValue)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        KeyTreeEncoder(node: node.child(key.stringValue)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { KeyTreeEncoder(node: node.child("super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { KeyTreeEncoder(node: node.child(key.stringValue)) }
}

struct UnkeyedKeyContainer: UnkeyedEncodingContainer {
    let node: KeyNode
    var codingPath: [any CodingKey] = []
    var count: Int { node.children.count }
    mutating func encodeNil() { _ = node.child("") }
    mutating func encode<T: Encodable>(_ v: T) { encodeScalar(v, into: node.child("")) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyTreeEncoder(node: node.child("")).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { KeyTreeEncoder(node: node.child("")).unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { KeyTreeEncoder(node: node.child("")) }
}
