/// The canonical bytes of an `Encodable` value, which persistent keys digest (`CacheKey`).
///
/// A key is the synthesised encoding of whole values (`Processing`, `NetworkOptions.KeyPart`,
/// `EntryKey`): a stored property added to them counts at once, and nobody assembles a key string
/// field by field. The form is deterministic and unambiguous: every field name and string is
/// length-prefixed, every scalar tagged, every container bracketed; fields come in declaration
/// order (the order synthesised conformances encode in), so reordering or renaming a stored
/// property changes every key of its type. A `nil` optional is left out entirely
/// (`encodeIfPresent`), so a new optional option keeps the keys of requests that do not use it.
///
/// It streams into one buffer: synthesised code fills a container and returns, so a container is
/// closed when the next value is written at a shallower depth (or at the end).
enum KeyEncoding {
    static func bytes<T: Encodable>(_ value: T) -> [UInt8] {
        let sink = KeySink()
        try? value.encode(to: KeyStreamEncoder(sink: sink, depth: 0))   // never throws
        sink.close(above: -1)
        return sink.bytes
    }

    /// The SHA-256 (hex) of `bytes(value)`.
    static func digest<T: Encodable>(_ value: T) -> String { SHA256.hex(bytes(value)) }
}

/// A value whose canonical encoding was taken once: written as those very bytes (the bytes of
/// encoding `value` in place), so that a value shared by many keys (the processing of every line of
/// a prefetch) is encoded once. Any other encoder encodes `value`.
struct PreEncoded<Value: Encodable & Sendable & Equatable>: Encodable, Sendable {
    let value: Value
    let bytes: [UInt8]

    init(_ value: Value) {
        self.value = value
        bytes = KeyEncoding.bytes(value)
    }

    func encode(to encoder: any Encoder) throws {
        guard let stream = encoder as? KeyStreamEncoder else { return try value.encode(to: encoder) }
        stream.sink.close(above: stream.depth - 1)
        stream.sink.bytes.append(contentsOf: bytes)
    }
}

/// The buffer of one `KeyEncoding.bytes` call and the containers open in it (their depths and
/// closing brackets). Local to that call.
final class KeySink {
    var bytes: [UInt8] = []
    private var open: [(depth: Int, close: UInt8)] = []

    init() { bytes.reserveCapacity(256) }

    /// Closes every container deeper than `depth`: a value is about to be written at `depth`.
    func close(above depth: Int) {
        while let last = open.last, last.depth > depth {
            bytes.append(last.close)
            open.removeLast()
        }
    }

    func openContainer(_ bracket: UInt8, closing: UInt8, depth: Int) {
        close(above: depth - 1)
        bytes.append(bracket)
        open.append((depth, closing))
    }

    /// A field name or string: `s<count>:<utf8>`.
    func string(_ s: String) {
        bytes.append(UInt8(ascii: "s"))
        number(s.utf8.count)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(contentsOf: s.utf8)
    }

    func key(_ name: String, depth: Int) {
        close(above: depth)
        string(name)
    }

    func scalar(_ tag: UInt8, _ value: some BinaryInteger) {
        bytes.append(tag)
        number(value)
        bytes.append(UInt8(ascii: ";"))
    }

    private func number(_ value: some BinaryInteger) { bytes.append(contentsOf: String(value).utf8) }
}

struct KeyStreamEncoder: Encoder {
    let sink: KeySink
    /// The depth of the container this encoder's value opens (its parent's depth + 1).
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        sink.openContainer(UInt8(ascii: "{"), closing: UInt8(ascii: "}"), depth: depth)
        return KeyedEncodingContainer(KeyedKeyContainer<Key>(sink: sink, depth: depth))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        sink.openContainer(UInt8(ascii: "["), closing: UInt8(ascii: "]"), depth: depth)
        return UnkeyedKeyContainer(sink: sink, depth: depth)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleKeyContainer(sink: sink, depth: depth) }
}

struct SingleKeyContainer: SingleValueEncodingContainer {
    let sink: KeySink
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    private func put(_ tag: UInt8, _ v: some BinaryInteger) {
        sink.close(above: depth - 1)
        sink.scalar(tag, v)
    }
    mutating func encodeNil() { sink.close(above: depth - 1); sink.bytes.append(UInt8(ascii: "n")) }
    mutating func encode(_ v: Bool) { put(UInt8(ascii: "b"), v ? 1 : 0) }
    mutating func encode(_ v: String) { sink.close(above: depth - 1); sink.string(v) }
    mutating func encode(_ v: Double) { put(UInt8(ascii: "d"), v.bitPattern) }
    mutating func encode(_ v: Float) { put(UInt8(ascii: "d"), Double(v).bitPattern) }
    mutating func encode(_ v: Int) { put(UInt8(ascii: "i"), v) }
    mutating func encode(_ v: Int8) { put(UInt8(ascii: "i"), v) }
    mutating func encode(_ v: Int16) { put(UInt8(ascii: "i"), v) }
    mutating func encode(_ v: Int32) { put(UInt8(ascii: "i"), v) }
    mutating func encode(_ v: Int64) { put(UInt8(ascii: "i"), v) }
    mutating func encode(_ v: UInt) { put(UInt8(ascii: "i"), v) }
    mutating func encode(_ v: UInt8) { put(UInt8(ascii: "i"), v) }
    mutating func encode(_ v: UInt16) { put(UInt8(ascii: "i"), v) }
    mutating func encode(_ v: UInt32) { put(UInt8(ascii: "i"), v) }
    mutating func encode(_ v: UInt64) { put(UInt8(ascii: "i"), v) }
    mutating func encode<T: Encodable>(_ v: T) { try? v.encode(to: KeyStreamEncoder(sink: sink, depth: depth)) }
}

struct KeyedKeyContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let sink: KeySink
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    /// Writes the field's name, then its value one level down.
    private func field<T: Encodable>(_ key: Key, _ value: T) {
        sink.key(key.stringValue, depth: depth)
        try? value.encode(to: KeyStreamEncoder(sink: sink, depth: depth + 1))
    }
    mutating func encodeNil(forKey key: Key) { sink.key(key.stringValue, depth: depth); sink.bytes.append(UInt8(ascii: "n")) }
    mutating func encode(_ v: Bool, forKey key: Key) { field(key, v) }
    mutating func encode(_ v: String, forKey key: Key) { field(key, v) }
    mutating func encode(_ v: Double, forKey key: Key) { field(key, v) }
    mutating func encode(_ v: Float, forKey key: Key) { field(key, v) }
    mutating func encode(_ v: Int, forKey key: Key) { field(key, v) }
    mutating func encode(_ v: Int8, forKey key: Key) { field(key, v) }
    mutating func encode(_ v: Int16, forKey key: Key) { field(key, v) }
    mutating func encode(_ v: Int32, forKey key: Key) { field(key, v) }
    mutating func encode(_ v: Int64, forKey key: Key) { field(key, v) }
    mutating func encode(_ v: UInt, forKey key: Key) { field(key, v) }
    mutating func encode(_ v: UInt8, forKey key: Key) { field(key, v) }
    mutating func encode(_ v: UInt16, forKey key: Key) { field(key, v) }
    mutating func encode(_ v: UInt32, forKey key: Key) { field(key, v) }
    mutating func encode(_ v: UInt64, forKey key: Key) { field(key, v) }
    mutating func encode<T: Encodable>(_ v: T, forKey key: Key) { field(key, v) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        sink.key(key.stringValue, depth: depth)
        return KeyStreamEncoder(sink: sink, depth: depth + 1).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        sink.key(key.stringValue, depth: depth)
        return KeyStreamEncoder(sink: sink, depth: depth + 1).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        sink.key("super", depth: depth)
        return KeyStreamEncoder(sink: sink, depth: depth + 1)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        sink.key(key.stringValue, depth: depth)
        return KeyStreamEncoder(sink: sink, depth: depth + 1)
    }
}

struct UnkeyedKeyContainer: UnkeyedEncodingContainer {
    let sink: KeySink
    let depth: Int
    private(set) var count = 0
    var codingPath: [any CodingKey] { [] }
    /// An element: `,` then its value one level down (so `[]` and `[nil]` differ).
    private mutating func element() -> KeyStreamEncoder {
        sink.close(above: depth)
        sink.bytes.append(UInt8(ascii: ","))
        count += 1
        return KeyStreamEncoder(sink: sink, depth: depth + 1)
    }
    mutating func encodeNil() { _ = element(); sink.bytes.append(UInt8(ascii: "n")) }
    mutating func encode<T: Encodable>(_ v: T) { try? v.encode(to: element()) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        element().container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { element().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { element() }
}
