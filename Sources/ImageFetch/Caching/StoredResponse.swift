/// What a cache entry keeps of the HTTP response it came from: enough to recompute its freshness
/// (RFC 9111 §4.2), to update it from a 304 (§4.3.4), and to show the decision (`cache info`).
/// Only the header fields caching reads are kept, each at most 2 KB, at most 32 lines.
public struct StoredResponse: Sendable, Equatable {
    public var status: Int
    /// When the request was sent and its response arrived, seconds since the epoch.
    public var requestTime: Double
    public var responseTime: Double
    /// The heuristic lifetime in effect when it was stored, in seconds.
    public var defaultTTL: Double
    /// The kept fields as `name: value` lines (the `.meta` form: read without parsing on every lookup).
    public private(set) var headerLines: [String]

    /// The kept header fields (parsed from `headerLines` on each use: never on the cache-hit path).
    public var headers: HTTPHeaders {
        StoredResponse.kept(HTTPHeaders(parsing: headerLines.joined(separator: "\n")))
    }

    /// The header fields kept (lower-case).
    public static let keptFields: Set<String> = ["cache-control", "expires", "date", "age", "last-modified", "etag",
                                                 "vary", "pragma", "content-type", "location"]

    public init(status: Int, requestTime: Double, responseTime: Double, defaultTTL: Double, headers: HTTPHeaders) {
        self.status = status
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.defaultTTL = defaultTTL
        self.headerLines = StoredResponse.kept(headers).all.map { $0.name + ": " + $0.value }
    }

    /// From the `.meta` form, as read: `headers` drops lines that do not name a kept field.
    init(status: Int, requestTime: Double, responseTime: Double, defaultTTL: Double, headerLines: [String]) {
        self.status = status
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.defaultTTL = defaultTTL
        self.headerLines = headerLines   // checked when parsed (`headers`): never on the cache-hit path
    }

    static func kept(_ headers: HTTPHeaders) -> HTTPHeaders {
        var out: [(name: String, value: String)] = []
        for h in headers.all where out.count < 32 && h.value.utf8.count <= 2048 {
            let name = h.name.lowercased()
            guard keptFields.contains(name), HTTPHeaders.validValue(h.value) != nil else { continue }
            out.append((name: name, value: h.value))
        }
        return HTTPHeaders(out)
    }

    /// The rules of this response (recomputed, never stored: they follow from the fields).
    public var freshness: Freshness {
        Freshness.evaluate(status: status, headers: headers, requestTime: requestTime, responseTime: responseTime,
                           defaultTTL: defaultTTL)
    }

    /// §4.3.4: a 304's fields replace the stored ones of the same name, the rest are kept; the
    /// exchange's times become the response's. A stored `Age` the 304 does not repeat is dropped
    /// (the 304 is the origin's word now).
    public func updated(with notModified: HTTPHeaders, requestTime: Double, responseTime: Double, defaultTTL: Double) -> StoredResponse {
        let fresh = StoredResponse.kept(notModified)
        var names = Set(fresh.all.map(\.name))
        names.insert("age")
        var merged = headers.all.filter { !names.contains($0.name) }
        merged.append(contentsOf: fresh.all)
        return StoredResponse(status: status, requestTime: requestTime, responseTime: responseTime,
                              defaultTTL: defaultTTL, headers: HTTPHeaders(merged))
    }
}

extension HTTPHeaders: Equatable {
    public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
        a.all.count == b.all.count && zip(a.all, b.all).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

extension HTTPHeaders {
    /// Every field line of `name` (case-insensitive), in order.
    public func values(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return all.filter { $0.name.lowercased() == wanted }.map(\.value)
    }
}
