/// Resuming a download that ended early (`LoadRequest.partial`): what the answer to a `Range` +
/// `If-Range` request means, and what a transfer that ends early keeps.
///
/// - A transfer that ends early (a timeout, a cut connection, a cancel) keeps its 200 or continued
///   206 body only under a strong validator (`PartialSlot.Partial.isStrong`): a strong ETag, else —
///   when the response has no ETag at all — a Last-Modified at least a minute before its Date. A weak
///   ETag keeps nothing (RFC 9110 §13.1.5: no date may be sent in `If-Range` beside an entity tag),
///   nor does a response without a validator, so two versions are never joined.
/// - A 206 continues the kept bytes only when its `Content-Range` starts where they end (of the same
///   whole length) and it carries the kept validator itself: the kept ETag, or the kept Last-Modified
///   (a server that ignores `If-Range` sends its new file's, or none; RFC 9110 §15.3.7 lets a server
///   leave them out of a 206, which then costs a download from the start, never a wrong image).
/// - RFC 9530 digests are checked before anything is stored (`HTTPDigests`): a 206's
///   `Content-Digest` against the part it carried; the joined body against the 206's
///   `Repr-Digest`, else the one kept with the partial; a 206 whose `Repr-Digest` contradicts the
///   kept one is another version (asked for again whole). A mismatch is an `integrity` failure and
///   the kept bytes go. A resumed body with no digest stays unverified (`LoadResponse.digest` nil).
/// - A 200 is the whole body (the validator changed, or the server ignores ranges): the kept bytes go.
/// - A 416 or a 206 that does not continue them: the kept bytes go and the body is asked for again
///   whole (`startOver`).
extension HTTPLoader {
    enum Reconciled {
        /// `digest`: the algorithms a joined body was checked with (nil: not joined, or unverified).
        case done(digest: String?)
        case startOver
        case failed(FetchError)
    }

    static func reconcile(_ result: inout TransferResult, partial: PartialSlot.Partial?, slot: PartialSlot) -> Reconciled {
        let failed = result.curlCode != 0
        var body = result.body
        var kept: PartialSlot.Partial?
        if let partial {
            switch result.httpStatus {
            case 206:
                let repr = HTTPDigests(field: result.headers["repr-digest"])
                guard let range = ContentRange(result.headers["content-range"]), range.start == Int64(partial.bytes.count),
                      partial.total == nil || partial.total == range.total,
                      sameVersion(result.headers, validator: partial.validator),
                      !(partial.reprDigest.map { kept in repr.map(kept.contradicts) ?? false } ?? false) else {
                    slot.remove()
                    return failed && result.curlCode == 42 ? .done(digest: nil) : .startOver
                }
                if !failed {
                    slot.remove()
                    if let content = HTTPDigests(field: result.headers["content-digest"]), !content.matches(result.body[...]) {
                        return .failed(.integrity("the 206's body does not match its Content-Digest (\(content.algorithms))"))
                    }
                    if let total = range.total, Int64(partial.bytes.count + result.body.count) != total { return .startOver }
                    var digest: String?
                    if let repr = repr ?? partial.reprDigest {
                        guard repr.matches(partial.bytes[...], result.body[...]) else {
                            return .failed(.integrity("the resumed body does not match the Repr-Digest (\(repr.algorithms))"))
                        }
                        digest = repr.algorithms
                    }
                    result.body = partial.bytes + result.body
                    result.httpStatus = 200   // the whole representation now
                    return .done(digest: digest)
                }
                body = partial.bytes + result.body
                kept = partial
                kept?.bytes = body
                kept?.total = range.total
                if kept?.reprDigest == nil { kept?.reprDigest = repr }
            case 200:
                slot.remove()
            case 416:
                slot.remove()
                return failed ? .done(digest: nil) : .startOver
            default:
                if !failed { slot.remove() }
                return .done(digest: nil)   // an error status or no response: kept for the next attempt
            }
        }
        guard failed else {
            if partial == nil, result.httpStatus == 200 { slot.remove() }
            return .done(digest: nil)
        }
        // Ended early: keep what came, when it can be resumed.
        guard !result.tooLarge, result.httpStatus == 200 || kept != nil, !body.isEmpty else { return .done(digest: nil) }
        if kept == nil { kept = keepable(body, headers: result.headers) }
        guard let kept, kept.isStrong, kept.total.map({ Int64(body.count) < $0 }) ?? true else { return .done(digest: nil) }
        slot.save(kept)
        return .done(digest: nil)
    }

    /// What a 200 that ended early may keep: under its strong ETag, else (no ETag at all) its
    /// Last-Modified with its Date; nil under a weak ETag or no validator.
    static func keepable(_ body: [UInt8], headers: HTTPHeaders) -> PartialSlot.Partial? {
        let validator: String
        if let etag = etag(headers) {
            guard etag.hasPrefix("\"") else { return nil }   // weak: never resumed, and never by date
            validator = etag
        } else {
            guard let modified = headers.validator("last-modified") else { return nil }
            validator = modified
        }
        var partial = PartialSlot.Partial(bytes: body, validator: validator,
                                          total: headers["content-length"].flatMap { HeaderNumber.integer($0.trimmed()) },
                                          date: headers["date"].flatMap { HTTPDate.parse($0) })
        partial.reprDigest = HTTPDigests(field: headers["repr-digest"])
        return partial
    }

    /// A complete 200's digests (RFC 9530): its `Repr-Digest` and `Content-Digest` against the body
    /// as received (no content coding is asked for, so both cover the same bytes). Returns the
    /// algorithms checked (nil: none sent); throws `integrity` on a mismatch.
    static func verifyWhole(_ body: [UInt8], headers: HTTPHeaders) throws(FetchError) -> String? {
        var checked: [String] = []
        for name in ["repr-digest", "content-digest"] {
            guard let digests = HTTPDigests(field: headers[name]) else { continue }
            guard digests.matches(body[...]) else {
                throw .integrity("the body does not match its \(name == "repr-digest" ? "Repr-Digest" : "Content-Digest") (\(digests.algorithms))")
            }
            checked.append(digests.algorithms)
        }
        return checked.isEmpty ? nil : checked[0]
    }

    /// Whether a 206 is of the version `validator` names: it must carry that validator itself (a
    /// server that ignored If-Range sends the new version's, or none).
    static func sameVersion(_ headers: HTTPHeaders, validator: String) -> Bool {
        if validator.hasPrefix("\"") { return etag(headers) == validator }
        return headers.validator("last-modified") == validator
    }

    /// The response's ETag when it is a valid header value.
    static func etag(_ headers: HTTPHeaders) -> String? { headers.validator("etag") }
}

/// `Content-Range: bytes START-END/TOTAL` of a 206 that runs to the end (END = TOTAL - 1); TOTAL
/// may be `*` (unknown). Each number is `HeaderNumber.integer`'s (digits only, at most 18 of them).
struct ContentRange: Equatable {
    let start: Int64
    let total: Int64?

    init?(_ value: String?) {
        guard let value, value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-"), let slash = spec.firstIndex(of: "/"), dash < slash,
              let start = HeaderNumber.integer(spec[..<dash]), let end = HeaderNumber.integer(spec[spec.index(after: dash)..<slash]),
              end >= start else { return nil }
        let totalText = spec[spec.index(after: slash)...]
        let total = totalText == "*" ? nil : HeaderNumber.integer(totalText)
        if totalText != "*" { guard let total, total > end, end == total - 1 else { return nil } }
        self.start = start
        self.total = total
    }
}
