// DirectHTTPResponse: parses the whole answer of a server to one HTTP/1.1 request sent with
// `Connection: close` (the direct client of `DirectHTTPClient`). Everything here is hostile input:
// every length is bounded and checked, and anything not understood is an error, never a guess.

/// A final HTTP/1.x response: status, headers and the body with its framing removed.
public struct DirectHTTPResponse: Sendable {
    /// The final status (200...599; interim 1xx responses are skipped).
    public var status: Int
    public var headers: HTTPHeaders
    /// The body: Content-Length bytes, the chunks of a chunked body joined, or every byte up to the
    /// end of the connection when neither frames it.
    public var body: [UInt8]

    /// The largest header section read (status line and headers of one response): 64 KiB.
    public static let maxHeadBytes = 64 << 10
    /// At most this many interim (1xx) responses are skipped before the final one.
    static let maxInterim = 8

    /// Parses `bytes`, everything the server sent until it closed the connection, as the response to
    /// a GET. A body longer than `maxBodyBytes` throws `.tooLarge`; a connection closed before the
    /// framing says the body ends throws `.truncated`; any other violation `.malformed`.
    public static func parse(_ bytes: [UInt8], maxBodyBytes: Int) throws(DirectHTTPError) -> DirectHTTPResponse {
        var start = 0
        for _ in 0...maxInterim {
            let (status, headers, bodyStart) = try head(bytes, from: start)
            if (100...199).contains(status) {
                guard status != 101 else { throw .malformed("a 101 (protocol switch) answer to a GET") }
                start = bodyStart
                continue
            }
            let body = try self.body(bytes, from: bodyStart, status: status, headers: headers, maxBodyBytes: maxBodyBytes)
            return DirectHTTPResponse(status: status, headers: headers, body: body)
        }
        throw .malformed("more than \(maxInterim) interim responses")
    }

    /// The status of the final response whose head `bytes` hold whole (its body may be cut short or
    /// too large); nil when there is none.
    static func status(ofHead bytes: [UInt8]) -> Int? {
        var start = 0
        for _ in 0...maxInterim {
            guard let (status, _, bodyStart) = try? head(bytes, from: start), status != 101 else { return nil }
            guard (100...199).contains(status) else { return status }
            start = bodyStart
        }
        return nil
    }

    // MARK: - Head

    /// The status line and header fields starting at `from`; the index of the first body byte.
    private static func head(_ b: [UInt8], from: Int) throws(DirectHTTPError) -> (Int, HTTPHeaders, Int) {
        let limit = min(b.count, from + maxHeadBytes)
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = from
        var i = from
        var end: Int?
        while i < limit {
            if b[i] == 0x0A {
                var line = b[lineStart..<i]
                if line.last == 0x0D { line = line.dropLast() }
                if line.isEmpty { end = i + 1; break }
                lines.append(line)
                lineStart = i + 1
            }
            i += 1
        }
        guard let bodyStart = end else {
            if b.count - from >= maxHeadBytes { throw .malformed("a header section over \(maxHeadBytes) bytes") }
            throw b.count == from ? .truncated("no response") : .truncated("the header section is cut short")
        }
        guard let statusLine = lines.first else { throw .malformed("no status line") }
        let status = try self.status(statusLine)
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            let (name, value) = try field(line)
            fields.append((name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
        }
        // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message means its framing is faulty.
        if statusLine[statusLine.startIndex + 7] == UInt8(ascii: "0"),
           fields.contains(where: { $0.name.lowercased() == "transfer-encoding" }) {
            throw .malformed("Transfer-Encoding in an HTTP/1.0 response")
        }
        return (status, HTTPHeaders(fields), bodyStart)
    }

    /// A header or trailer line (without its line end): `NAME: VALUE`, the value without the
    /// whitespace around it.
    private static func field(_ line: ArraySlice<UInt8>) throws(DirectHTTPError) -> (ArraySlice<UInt8>, ArraySlice<UInt8>) {
        guard let first = line.first, first != 0x20, first != 0x09 else {
            throw .malformed("a folded header line")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
              line[line.startIndex..<colon].allSatisfy(isTokenByte) else {
            throw .malformed("a header line that is not NAME: VALUE")
        }
        var value = line[(colon + 1)...]
        while let c = value.first, c == 0x20 || c == 0x09 { value = value.dropFirst() }
        while let c = value.last, c == 0x20 || c == 0x09 { value = value.dropLast() }
        guard !value.contains(where: isControlByte) else {
            throw .malformed("a control character in a header value")
        }
        return (line[line.startIndex..<colon], value)
    }

    /// A control character other than tab (never in a field value or a chunk extension).
    private static func isControlByte(_ c: UInt8) -> Bool { (c < 0x20 && c != 0x09) || c == 0x7F }

    /// `HTTP/1.0 NNN` or `HTTP/1.1 NNN`, then nothing or a space and a reason.
    private static func status(_ line: ArraySlice<UInt8>) throws(DirectHTTPError) -> Int {
        let l = Array(line)
        guard l.count >= 12, l[0..<7].elementsEqual("HTTP/1.".utf8), l[7] == UInt8(ascii: "0") || l[7] == UInt8(ascii: "1"),
              l[8] == 0x20, l[9...11].allSatisfy({ (0x30...0x39).contains($0) }), l.count == 12 || l[12] == 0x20 else {
            throw .malformed("not an HTTP/1.x status line")
        }
        let code = l[9...11].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard (100...599).contains(code) else { throw .malformed("status \(code)") }
        return code
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: "!#$%&'*+-.^_`|~".utf8.contains(c)
        }
    }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39, 0x41...0x46, 0x61...0x66: true
        default: false
        }
    }

    // MARK: - Body

    private static func body(_ b: [UInt8], from: Int, status: Int, headers: HTTPHeaders,
                             maxBodyBytes: Int) throws(DirectHTTPError) -> [UInt8] {
        let lengths = headers.all.filter { $0.name.lowercased() == "content-length" }.map(\.value)
        let codings = headers.all.filter { $0.name.lowercased() == "transfer-encoding" }.map { $0.value.lowercased() }
        let encodings = headers.all.filter { $0.name.lowercased() == "content-encoding" }.map { $0.value.lowercased() }
        guard encodings.allSatisfy({ $0 == "identity" }) else {
            throw .malformed("a Content-Encoding that was not asked for")
        }
        if status == 204 || status == 304 { return [] }
        if !codings.isEmpty {
            guard codings == ["chunked"] else { throw .malformed("a Transfer-Encoding other than chunked") }
            guard lengths.isEmpty else { throw .malformed("both Transfer-Encoding and Content-Length") }
            return try chunked(b, from: from, maxBodyBytes: maxBodyBytes)
        }
        let rest = b.count - from
        if let first = lengths.first {
            guard lengths.allSatisfy({ $0 == first }), let length = HeaderNumber.integer(first).map(Int.init) else {
                throw .malformed("a Content-Length that is not one number")
            }
            guard length <= maxBodyBytes else { throw .tooLarge }
            guard rest >= length else { throw .truncated("the body is cut short (\(rest) of \(length) bytes)") }
            guard rest == length else { throw .malformed("bytes after the end of the body") }
            return Array(b[from...])
        }
        guard rest <= maxBodyBytes else { throw .tooLarge }
        return Array(b[from...])
    }

    /// Joins the chunks of a chunked body (RFC 9112 §7.1); trailer fields are checked and dropped.
    private static func chunked(_ b: [UInt8], from: Int, maxBodyBytes: Int) throws(DirectHTTPError) -> [UInt8] {
        var out: [UInt8] = []
        var i = from
        func line() throws(DirectHTTPError) -> ArraySlice<UInt8> {
            let limit = min(b.count, i + 4096)
            var j = i
            while j < limit, b[j] != 0x0A { j += 1 }
            guard j < limit else {
                throw j == b.count ? .truncated("the chunked body is cut short") : .malformed("a chunk line over 4096 bytes")
            }
            var l = b[i..<j]
            if l.last == 0x0D { l = l.dropLast() }
            i = j + 1
            return l
        }
        while true {
            let sizeLine = try line()
            // chunk-size [ BWS ";" chunk-ext ]: hex digits only (Int(_:radix:) alone would take "+5"
            // and "-0"), then nothing or an extension, which is ignored but may hold no control byte.
            let digits = sizeLine.prefix { isHexDigit($0) }
            let ext = sizeLine[digits.endIndex...].drop { $0 == 0x20 || $0 == 0x09 }
            guard (1...15).contains(digits.count), ext.first.map({ $0 == UInt8(ascii: ";") }) ?? true,
                  !ext.contains(where: isControlByte),
                  let size = Int(String(decoding: digits, as: UTF8.self), radix: 16) else {
                throw .malformed("a chunk size that is not a hex number")
            }
            if size == 0 { break }
            guard size <= maxBodyBytes - out.count else { throw .tooLarge }
            guard b.count - i >= size else { throw .truncated("the chunked body is cut short") }
            out.append(contentsOf: b[i..<(i + size)])
            i += size
            guard try line().isEmpty else { throw .malformed("a chunk not followed by CRLF") }
        }
        var trailers = 0
        while case let trailer = try line(), !trailer.isEmpty {
            trailers += 1
            guard trailers <= 100 else { throw .malformed("more than 100 trailer fields") }
            _ = try field(trailer)
        }
        guard i == b.count else { throw .malformed("bytes after the end of the body") }
        return out
    }
}

/// Why a direct response could not be used.
public enum DirectHTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server broke the protocol (the reason, never the server's own text).
    case malformed(String)
    /// The connection ended before the response did.
    case truncated(String)
    /// The body is larger than allowed.
    case tooLarge

    public var description: String {
        switch self {
        case .malformed(let why): "malformed response: \(why)"
        case .truncated(let why): "incomplete response: \(why)"
        case .tooLarge: "response too large"
        }
    }
}
