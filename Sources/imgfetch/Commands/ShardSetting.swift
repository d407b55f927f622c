import ArgumentKit
import ImageFetch

/// `--shard K/N`, `--shard auto` and `--shard auto/N`: the slice of a prefetch list (or of a
/// `cache pull`) this task does. `auto` reads the job runner's index and count, `auto/N` only its
/// index (runners that give no count); either gives the slice `K/N` gives. The variables come from
/// the environment and are checked as any input: ASCII digits only, within range, K <= N.
///
/// - `auto`: Slurm job arrays, K = (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) /
///   SLURM_ARRAY_TASK_STEP (1 when unset) + 1 and N = SLURM_ARRAY_TASK_COUNT, refused when the
///   array is not one regular range (`--array=1,5,7`); else Cloud Run jobs, K = CLOUD_RUN_TASK_INDEX
///   + 1 and N = CLOUD_RUN_TASK_COUNT.
/// - `auto/N`: Kubernetes Indexed Jobs, K = JOB_COMPLETION_INDEX + 1; else AWS Batch array jobs,
///   K = AWS_BATCH_JOB_ARRAY_INDEX + 1.
enum ShardSetting {
    typealias Environment = (String) -> String?

    /// The `--shard` of `parsed`; nil without one.
    static func from(_ parsed: ParsedCommand, environment: Environment = Console.environment) throws(UsageError) -> Shard? {
        guard let slice = try parsed.parse(OptionKeys.shard, { (text: String) throws(UsageError) in try resolve(text, environment: environment) })
        else { return nil }
        return Shard(index: slice.k, count: slice.n)
    }

    /// K and N of a `--shard` value.
    static func resolve(_ text: String, environment env: Environment) throws(UsageError) -> (k: Int, n: Int) {
        if text == "auto" { return try runnerSlice(env) }
        if text.hasPrefix("auto/") {
            let count = text.dropFirst(5)
            guard let n = number(count), n >= 1 else { throw UsageError("expected auto/N with N a whole number of at least 1, such as auto/10") }
            return try indexSlice(n, env)
        }
        return try ValueParsers.fraction(text)
    }

    static let slurm = ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"]
    static let cloudRun = ["CLOUD_RUN_TASK_INDEX", "CLOUD_RUN_TASK_COUNT"]

    /// `auto`: Slurm, else Cloud Run.
    static func runnerSlice(_ env: Environment) throws(UsageError) -> (k: Int, n: Int) {
        if env("SLURM_ARRAY_TASK_ID") != nil {
            let id = try variable("SLURM_ARRAY_TASK_ID", env), min = try variable("SLURM_ARRAY_TASK_MIN", env)
            let n = try variable("SLURM_ARRAY_TASK_COUNT", env, atLeast: 1)
            let step = try env("SLURM_ARRAY_TASK_STEP") == nil ? 1 : variable("SLURM_ARRAY_TASK_STEP", env, atLeast: 1)
            let max: Int? = try env("SLURM_ARRAY_TASK_MAX") == nil ? nil : variable("SLURM_ARRAY_TASK_MAX", env)
            let irregular = id < min || (id - min) % step != 0
                || max.map { $0 < min || ($0 - min) % step != 0 || ($0 - min) / step + 1 != n } ?? false
            guard !irregular else {
                throw UsageError("the Slurm array is not one regular range (SLURM_ARRAY_TASK_ID=\(id), MIN=\(min), STEP=\(step)\(max.map { ", MAX=\($0)" } ?? ""), COUNT=\(n)): --shard auto needs --array=A-B or A-B:STEP; give --shard K/N yourself")
            }
            return try slice((id - min) / step + 1, n, from: "SLURM_ARRAY_TASK_ID=\(id)")
        }
        if env("CLOUD_RUN_TASK_INDEX") != nil {
            let index = try variable("CLOUD_RUN_TASK_INDEX", env), n = try variable("CLOUD_RUN_TASK_COUNT", env, atLeast: 1)
            return try slice(index + 1, n, from: "CLOUD_RUN_TASK_INDEX=\(index)")
        }
        throw UsageError("--shard auto reads a job array's index and count, and none is set: Slurm (\(slurm.joined(separator: ", ")), SLURM_ARRAY_TASK_STEP) or Cloud Run (\(cloudRun.joined(separator: ", "))); with an index only (JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX), give the count: --shard auto/N")
    }

    /// `auto/N`: Kubernetes, else AWS Batch.
    static func indexSlice(_ n: Int, _ env: Environment) throws(UsageError) -> (k: Int, n: Int) {
        for name in ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"] where env(name) != nil {
            let index = try variable(name, env)
            return try slice(index + 1, n, from: "\(name)=\(index)")
        }
        throw UsageError("--shard auto/N reads a job's index, and none is set: JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch); Slurm and Cloud Run give a count too: --shard auto")
    }

    static func slice(_ k: Int, _ n: Int, from what: String) throws(UsageError) -> (k: Int, n: Int) {
        guard k <= n else { throw UsageError("\(what) gives slice \(k), beyond the \(n) slices") }
        return (k, n)
    }

    /// An environment variable that must be a whole number (ASCII digits, at most 9 of them: no
    /// sign, blank or suffix) of at least `atLeast`.
    static func variable(_ name: String, _ env: Environment, atLeast: Int = 0) throws(UsageError) -> Int {
        guard let text = env(name) else { throw UsageError("\(name) is not set") }
        guard let value = number(Substring(text)), value >= atLeast else {
            throw UsageError("\(name)='\(ListParser.quoted(text, limit: 40, marks: false))' is not a whole number\(atLeast > 0 ? " of at least \(atLeast)" : "")")
        }
        return value
    }

    static func number(_ text: Substring) -> Int? {
        guard (1...9).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(text)
    }
}
