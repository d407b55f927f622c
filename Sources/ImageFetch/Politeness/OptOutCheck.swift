/// The opt-out decision of one request, made before it is sent (`Politeness.check`): what the
/// origin's tdmrep.json and robots.txt `Content-Usage` say of its path, then, on the response's
/// headers (`decide`), its own `X-Robots-Tag`, `tdm-reservation` and `Content-Usage`. The curl
/// engine asks it when the headers are in (`headersCheck`), so an opted-out image's transfer
/// stops there, before its body; `decided` is read after the transfer. A `Lock`: the transfer
/// thread writes, the retrieval reads.
public final class OptOutCheck: Sendable {
    let agent: String
    let usage: String
    /// The origin's tdmrep.json rule for the path, reserved or not (nil: none).
    let tdmrep: TDMRepFile.Rule?
    /// robots.txt's `content-usage` preference for the path (nil: none).
    let robotsPreference: String?
    let notes: @Sendable (String) -> Void
    private let found = Lock<PolicySkip?>(nil)

    init(agent: String, usage: String, tdmrep: TDMRepFile.Rule?, robotsPreference: String?, notes: @escaping @Sendable (String) -> Void) {
        self.agent = agent
        self.usage = usage
        self.tdmrep = tdmrep
        self.robotsPreference = robotsPreference
        self.notes = notes
    }

    /// What the headers the check saw decided (nil: not opted out, or not seen).
    public var decided: PolicySkip? { found.withLock { $0 } }

    /// The opt-out `headers` carry, with the origin's rules for the path; nil: none.
    public func decide(_ headers: HTTPHeaders) -> PolicySkip? {
        if let directive = OptOutSignals.robotsTag(headers, agent: agent) { return PolicySkip(cause: .optOut, rule: directive) }
        switch OptOutSignals.tdmReservation(headers) {
        case true?: return PolicySkip(cause: .optOut, rule: "tdm-reservation: 1")
        case false?: break   // the response's own `0` overrides the origin's file
        case nil:
            if let tdmrep, tdmrep.reserved { return PolicySkip(cause: .optOut, rule: "tdmrep.json: location \(tdmrep.location)") }
        }
        if let field = headers["content-usage"] {
            switch OptOutSignals.usage(field, category: usage) {
            case (true?, _): return PolicySkip(cause: .optOut, rule: "Content-Usage: \(field)")
            case (false?, _): return nil   // the response's own statement overrides robots.txt's
            case (nil, true): notes("Content-Usage \"\(HostDownMarks.line(field))\" does not parse: ignored")
            case (nil, false): break
            }
        }
        if let robotsPreference {
            switch OptOutSignals.usage(robotsPreference, category: usage) {
            case (true?, _): return PolicySkip(cause: .optOut, rule: "robots.txt content-usage: \(robotsPreference)")
            case (nil, true): notes("robots.txt content-usage \"\(HostDownMarks.line(robotsPreference))\" does not parse: ignored")
            default: break
            }
        }
        return nil
    }

    /// The engine's check: the headers as they arrived, decided once; 1 stops the transfer.
    var headersCheck: HeadersCheck {
        HeadersCheck(context: Unmanaged.passUnretained(self).toOpaque(), onHeaders: { ctx, text in
            guard let ctx, let text else { return 0 }
            let check = Unmanaged<OptOutCheck>.fromOpaque(ctx).takeUnretainedValue()
            let skip = check.decide(HTTPHeaders(parsing: String(cString: text)))
            check.found.withLock { $0 = skip }
            return skip == nil ? 0 : 1
        })
    }
}
