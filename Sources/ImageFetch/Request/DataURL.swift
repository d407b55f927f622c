/// The payload of a `data:` URL (RFC 2397), kept encoded until it is loaded.
///
/// Parsing validates the text and counts the decoded bytes without decoding them, so a payload
/// larger than `--max-bytes` is refused before any memory is spent on it. The digest that
/// identifies it in the cache is computed on first use, by a streaming decode (no decoded copy).
/// Two data URLs are equal when they carry the same media type and the same bytes.
public struct DataURL: Sendable, Hashable {
    /// The media type, lowercased (`application/octet-stream` when the URL names none).
    public let mediaType: String
    /// The number of bytes the payload decodes to.
    public let byteCount: Int
    let payload: Payload

    enum Payload: Sendable {
        /// base64 text (standard or URL-safe alphabet, padding optional, ASCII whitespace ignored).
        case base64(String)
        /// Percent-encoded octets.
        case percent(String)
        case bytes([UInt8])
    }

    /// Bytes given directly (tests, callers that already hold them).
    public init(mediaType: String, bytes: [UInt8]) {
        self.mediaType = mediaType
        self.byteCount = bytes.count
        self.payload = .bytes(bytes)
    }

    /// Validates `text` (what follows the comma) and counts its decoded bytes; nil when it is not
    /// valid base64 (`base64`) or has a malformed `%XX` sequence.
    init?(mediaType: String, encoded text: String, base64: Bool) {
        self.mediaType = mediaType
        if base64 {
            guard let count = Base64.decodedCount(text.utf8) else { return nil }
            byteCount = count
            payload = .base64(text)
        } else {
            guard let count = DataURL.percentDecodedCount(text.utf8) else { return nil }
            byteCount = count
            payload = .percent(text)
        }
    }

    /// The decoded bytes (one allocation of `byteCount`).
    public func decoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(byteCount)
        forEachChunk { out.append(contentsOf: $0) }
        return out
    }

    /// SHA-256 of the decoded bytes, in hex, by a streaming decode (no decoded copy). Computed at
    /// each use: a request's plan takes its source's identity once (`RequestPlan.keys(for:)`).
    public var sha256: String {
        var hasher = SHA256()
        forEachChunk { hasher.update($0[...]) }
        return SHA256.hexString(hasher.finalize())
    }

    /// The decoded bytes in chunks of at most 48 KiB.
    func forEachChunk(_ body: ([UInt8]) -> Void) {
        switch payload {
        case .bytes(let bytes): body(bytes)
        case .base64(let text): Base64.decode(text.utf8, chunk: 48 * 1024, body)
        case .percent(let text): DataURL.percentDecode(text.utf8, chunk: 48 * 1024, body)
        }
    }

    /// The message of a payload refused by `maxBytes`.
    static func tooLargeMessage(_ payload: DataURL, _ maxBytes: Int64) -> String {
        "data: URL of \(payload.byteCount) bytes exceeds --max-bytes \(maxBytes)"
    }

    public static func == (a: DataURL, b: DataURL) -> Bool {
        a.mediaType == b.mediaType && a.byteCount == b.byteCount && a.sha256 == b.sha256
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(mediaType)
        hasher.combine(byteCount)
    }

    // MARK: - percent encoding

    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 65...70: c - 55
        case 97...102: c - 87
        default: nil
        }
    }

    static func percentDecodedCount(_ text: String.UTF8View) -> Int? {
        var count = 0
        var pending = 0   // hex digits still expected after a '%'
        for c in text {
            if pending > 0 {
                guard hexValue(c) != nil else { return nil }
                pending -= 1
                continue
            }
            if c == UInt8(ascii: "%") { pending = 2 }
            count += 1
        }
        return pending == 0 ? count : nil
    }

    static func percentDecode(_ text: String.UTF8View, chunk: Int, _ body: ([UInt8]) -> Void) {
        var out: [UInt8] = []
        out.reserveCapacity(chunk)
        var iterator = text.makeIterator()
        while let c = iterator.next() {
            if c == UInt8(ascii: "%"), let h = iterator.next().flatMap(hexValue), let l = iterator.next().flatMap(hexValue) {
                out.append(h << 4 | l)
            } else {
                out.append(c)
            }
            if out.count == chunk { body(out); out.removeAll(keepingCapacity: true) }
        }
        if !out.isEmpty { body(out) }
    }
}
