/// Resuming a download that ended early (`LoadRequest.partial`): what the answer to a `Range` +
/// `If-Range` request means, and what a transfer that ends early keeps.
///
/// - A 206 whose `Content-Range` starts where the kept bytes end (of the same whole length, with
///   the same ETag when both have one) continues them: the body is the two joined, checked against
///   the whole length once complete.
/// - A 200 is the whole body (the validator changed, or the server ignores ranges): the kept bytes go.
/// - A 416 or a 206 that does not continue them: the kept bytes go and the body is asked for again
///   whole (`startOver`).
/// - A transfer that ends early (a timeout, a cut connection, a cancel) keeps its 200 or continued
///   206 body, when the response has a validator (a strong ETag, else Last-Modified): never for a
///   response without one, so two versions are never joined.
extension HTTPLoader {
    enum Reconciled { case done, startOver }

    static func reconcile(_ result: inout TransferResult, partial: PartialSlot.Partial?, slot: PartialSlot) -> Reconciled {
        let failed = result.curlCode != 0
        var body = result.body
        var total: Int64?
        var validator: String?
        if let partial {
            switch result.httpStatus {
            case 206:
                guard let range = ContentRange(result.headers["content-range"]), range.start == Int64(partial.bytes.count),
                      partial.total == nil || partial.total == range.total,
                      sameVersion(result.headers, validator: partial.validator) else {
                    slot.remove()
                    return failed && result.curlCode == 42 ? .done : .startOver
                }
                body = partial.bytes + result.body
                total = range.total
                validator = partial.validator
                if !failed {
                    slot.remove()
                    if let total, Int64(body.count) != total { return .startOver }
                    result.body = body
                    result.httpStatus = 200   // the whole representation now
                    return .done
                }
            case 200:
                slot.remove()
            case 416:
                slot.remove()
                return failed ? .done : .startOver
            default:
                if !failed { slot.remove() }
                return .done   // an error status or no response: kept for the next attempt
            }
        }
        guard failed else {
            if partial == nil, result.httpStatus == 200 { slot.remove() }
            return .done
        }
        // Ended early: keep what came, when it can be resumed.
        guard !result.tooLarge, result.httpStatus == 200 || validator != nil, !body.isEmpty else { return .done }
        if validator == nil {
            validator = etag(result.headers).flatMap { $0.hasPrefix("\"") ? $0 : nil } ?? result.headers.validator("last-modified")
            total = result.headers["content-length"].flatMap { HeaderNumber.integer($0.trimmed()) }
        }
        guard let validator, total.map({ Int64(body.count) < $0 }) ?? true else { return .done }
        slot.save(PartialSlot.Partial(bytes: body, validator: validator, total: total))
        return .done
    }

    /// Whether a 206 is of the version `validator` names, as far as its own validators say (a server
    /// that ignored If-Range would send the new version's).
    static func sameVersion(_ headers: HTTPHeaders, validator: String) -> Bool {
        if validator.hasPrefix("\"") { return etag(headers).map { $0 == validator } ?? true }
        return headers.validator("last-modified").map { $0 == validator } ?? true
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
