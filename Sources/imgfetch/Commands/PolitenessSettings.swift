import ArgumentKit
import ImageFetch

/// What a command honours (`PolitenessPolicy`): robots.txt by default for `prefetch` (a batch is a
/// crawler), for `get` only with `--robots`; the opt-out signals in a dataset run (`--shard-dir`,
/// or `--honor-opt-outs`). `--no-robots` is said once on stderr.
enum PolitenessSettings {
    static func from(_ parsed: ParsedCommand, settings: RequestOptions, robotsByDefault: Bool, dataset: Bool) throws(UsageError) -> PolitenessPolicy {
        let robots = parsed[OptionKeys.robots], noRobots = parsed[OptionKeys.noRobots]
        let optOuts = parsed[OptionKeys.honorOptOuts], noOptOuts = parsed[OptionKeys.noHonorOptOuts]
        if robots && noRobots { throw UsageError("--robots and --no-robots contradict each other: give one") }
        if optOuts && noOptOuts { throw UsageError("--honor-opt-outs and --no-honor-opt-outs contradict each other: give one") }
        var policy = PolitenessPolicy()
        policy.robots = robots || (robotsByDefault && !noRobots)
        policy.optOuts = optOuts || (dataset && !noOptOuts)
        policy.usage = try parsed[OptionKeys.usage] ?? "train-ai"
        policy.agent = RobotsTxt.agentToken(userAgent: settings.network.userAgent ?? "imgfetch/\(ImageFetchVersion.string)")
        if noRobots && !settings.quiet {
            Console.errorLine("robots.txt is not read (--no-robots): every line is requested whatever its origin allows")
        }
        return policy
    }
}
