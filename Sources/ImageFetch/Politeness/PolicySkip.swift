/// Why a request was not fetched by policy: its `cause` (`robots`: robots.txt disallows its path;
/// `optOut`: the response or the origin opted out of the run's use) and the `rule` or directive
/// that decided it, as written (`disallow: /private/`, `X-Robots-Tag: noai`).
public struct PolicySkip: Sendable, Equatable {
    public var cause: FailureCause
    public var rule: String

    public init(cause: FailureCause, rule: String) {
        self.cause = cause
        self.rule = HostDownMarks.line(rule)
    }

    public var message: String {
        cause == .robots ? "skipped: robots.txt disallows it (\(rule))" : "skipped: the server opted out (\(rule))"
    }
}
