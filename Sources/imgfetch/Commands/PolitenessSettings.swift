import ArgumentKit
import ImageFetch

/// What a command honours (`PolitenessPolicy`): robots.txt by default for `prefetch` (a batch is a
/// crawler), for `get` only with `--robots`; the opt-out signals in a dataset run (`--shard-dir`,
/// or `--honor-opt-outs`). `--no-robots` is said once on stderr.
enum PolitenessSettings {
    static func from(_ parsed: ParsedCommand, settings: RequestOptions, robotsByDefault: Bool, dataset: Bool) throws(UsageError) -> PolitenessPolicy {
        if parsed[OptionKeys.robots] && parsed[OptionKeys.noRobots] {
            throw UsageError("--robots and --no-robots contradict each other: give one")
        }
        if parsed[OptionKeys.honorOptOuts] && parsed[OptionKeys.noHonorOptOuts] {
            throw UsageError("--honor-opt-outs and --no-honor-opt-outs contradict each other: give one")
        }
        var policy = PolitenessPolicy()
        policy.robots = parsed[OptionKeys.robots] || (robotsByDefault && !parsed[OptionKeys.noRobots])
        policy.optOuts = parsed[OptionKeys.honorOptOuts] || (dataset && !parsed[OptionKeys.noHonorOptOuts])
        policy.usage = try parsed[OptionKeys.usage] ?? "train-ai"
        policy.agent = RobotsTxt.agentToken(userAgent: settings.network.userAgent ?? "imgfetch/\(ImageFetchVersion.string)")
        if parsed[OptionKeys.noRobots] && !settings.quiet {
            Console.errorLine("robots.txt is not read (--no-robots): every line is requested whatever its origin allows")
        }
        return policy
    }
}
