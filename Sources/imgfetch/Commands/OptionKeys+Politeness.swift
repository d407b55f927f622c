import ArgumentKit

/// robots.txt and the opt-out signals (man imgfetch, POLITENESS; `PolitenessSettings`).
extension OptionKeys {
    static let robots: FlagKey = .flag("robots", help: "Honour each origin's robots.txt (RFC 9309; the default of prefetch): a disallowed image is skipped, never requested.")
    static let noRobots: FlagKey = .flag("no-robots", help: "Do not read robots.txt (said once on stderr).")
    static let honorOptOuts: FlagKey = .flag("honor-opt-outs", help: "Skip images whose server opted out (X-Robots-Tag noai/noimageai/noml/noindex/noimageindex, TDMRep, Content-Usage); the default with --shard-dir.")
    static let noHonorOptOuts: FlagKey = .flag("no-honor-opt-outs", help: "Do not honour the opt-out signals, even with --shard-dir.")
    static let usage: ValueKey<String> = .value("usage", valueName: "train-ai|train-genai", help: "The use the run declares, against which Content-Usage preferences are read.", defaultDescription: "train-ai", completion: .choices(["train-ai", "train-genai"]), parser: ValueParsers.oneOf(["train-ai", "train-genai"]))
}

extension Specs {
    static let politeness = OptionSpec.list(OptionKeys.robots, OptionKeys.noRobots, OptionKeys.honorOptOuts, OptionKeys.noHonorOptOuts, OptionKeys.usage)
}
