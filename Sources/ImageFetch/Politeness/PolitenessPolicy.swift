/// What a run honours (`Politeness`): robots.txt (`prefetch` by default, `get --robots`), the
/// opt-out signals (a dataset run), the usage category the run declares, and the product token
/// robots.txt groups and scoped X-Robots-Tag fields are matched against.
public struct PolitenessPolicy: Sendable, Hashable {
    public var robots = false
    public var optOuts = false
    /// `train-ai` (default) or `train-genai`.
    public var usage = "train-ai"
    /// The User-Agent's product token, lowercased (`imgfetch`).
    public var agent = "imgfetch"

    public init(robots: Bool = false, optOuts: Bool = false, usage: String = "train-ai", agent: String = "imgfetch") {
        self.robots = robots
        self.optOuts = optOuts
        self.usage = usage
        self.agent = agent
    }

    public var isActive: Bool { robots || optOuts }
}
