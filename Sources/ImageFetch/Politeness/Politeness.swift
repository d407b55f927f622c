/// What a run honours before and while it fetches from an origin (`PolitenessPolicy`): the
/// origin's robots.txt (RFC 9309), and in a dataset run the opt-out signals (`OptOutSignals`,
/// TDMRep's `/.well-known/tdmrep.json`). Asked by the pipeline for http(s) sources only, right
/// before a request (`admit`; `check`: the opt-out decision its response's headers complete);
/// the remote tier's own requests never come here. The per-origin files come from `PolicyFiles` (once per
/// origin per cache); robots.txt's `Crawl-delay` becomes the origin's minimum interval in its
/// `OriginSchedule` (bounded by `OriginSchedule.maxInterval`).
public final class Politeness: Sendable {
    public let policy: PolitenessPolicy
    let files: PolicyFiles
    let schedule: OriginSchedule?
    private let parsed = Lock<[String: RobotsTxt]>([:])
    private let notes = Lock<[String]>([])

    public static let robotsPath = "/robots.txt"
    public static let tdmrepPath = "/.well-known/tdmrep.json"

    public init(policy: PolitenessPolicy, files: PolicyFiles, schedule: OriginSchedule?) {
        self.policy = policy
        self.files = files
        self.schedule = schedule
    }

    /// Before any request to `source` (its `load`'s options are the robots.txt fetch's): throws
    /// `skipped` when robots.txt disallows it, `robotsUnavailable` when robots.txt cannot be had.
    public func admit(_ source: Source, like load: LoadRequest) async throws(FetchError) {
        guard policy.robots, case .http(let url) = source, let root = PolicyFiles.root(of: url) else { return }
        let robots = try await robotsTxt(root, like: load)
        if let rule = robots.verdict(path: PolicyFiles.pathAndQuery(of: url)) {
            throw .skipped(PolicySkip(cause: .robots, rule: rule.text))
        }
    }

    /// The opt-out decision of a request to `source` (`OptOutCheck`): the origin's tdmrep.json
    /// and robots.txt `Content-Usage` for its path, fetched now; its response's headers decide the
    /// rest. Nil unless the policy honours opt-outs.
    public func check(_ source: Source, like load: LoadRequest) async -> OptOutCheck? {
        guard policy.optOuts, case .http(let url) = source, let root = PolicyFiles.root(of: url) else { return nil }
        let path = PolicyFiles.pathAndQuery(of: url)
        let tdmrep = await tdmrep(root, like: load)?.rule(path: path)
        let preference = policy.robots ? parsed.withLock({ $0[root] })?.usagePreference(path: path) : nil
        return OptOutCheck(agent: policy.agent, usage: policy.usage, tdmrep: tdmrep, robotsPreference: preference,
                           notes: { [weak self] text in self?.note("\(url): \(text)") })
    }

    /// The notes said with `-v` (a malformed field, an unusable tdmrep.json), once each, taken.
    public func takeNotes() -> [String] { notes.withLock { n in defer { n = [] }; return n } }

    private func note(_ text: String) { notes.withLock { n in if n.count < 1000, !n.contains(text) { n.append(text) } } }

    /// The origin's robots.txt, parsed once per process.
    private func robotsTxt(_ root: String, like load: LoadRequest) async throws(FetchError) -> RobotsTxt {
        if let known = parsed.withLock({ $0[root] }) { return known }
        let url = root + Politeness.robotsPath
        let robots: RobotsTxt
        switch await files.fetch(url, like: load) {
        case .answered(let status, let body):
            robots = (200...299).contains(status) ? RobotsTxt(body, agent: policy.agent) : RobotsTxt()
        case .unavailable(let error):
            if case .cancelled = error { throw .cancelled }
            throw .robotsUnavailable(url: url, reason: error)
        }
        if let delay = robots.crawlDelay, let origin = Source.http(root + "/").origin {
            schedule?.setMinimumInterval(origin, seconds: delay)
        }
        parsed.withLock { p in if p.count < 65536 { p[root] = robots } }
        return robots
    }

    /// The origin's tdmrep.json; nil when it says nothing (missing, an error, malformed: a note).
    private func tdmrep(_ root: String, like load: LoadRequest) async -> TDMRepFile? {
        let url = root + Politeness.tdmrepPath
        switch await files.fetch(url, like: load) {
        case .answered(let status, let body) where (200...299).contains(status):
            if let file = TDMRepFile(body) { return file }
            note("\(url): not a TDMRep file: it expresses nothing")
            return nil
        case .answered:
            return nil
        case .unavailable(let error):
            if error != .cancelled { note("\(url): \(error.message): it expresses nothing") }
            return nil
        }
    }
}
