import ArgumentKit

/// `prefetch`'s own options: admission, progress and its file of failed lines.
extension OptionKeys {
    static let jobs: ValueKey<Int> = .int("jobs", short: "j", valueName: "N", help: "Transfers at once.", defaultDescription: "8", range: 1...256)
    static let rate: ValueKey<Double> = .double("rate", valueName: "PER_SECOND", help: "At most this many requests per second (token bucket).", range: 0.001...100_000)
    static let perHost: ValueKey<Int> = .int("per-host", valueName: "N", help: "At most N transfers (and connections) per host.", range: 1...256)
    static let shard: TextKey = .value("shard", valueName: "K/N|auto|auto/N", help: "Only the K-th of N deterministic slices of the list (by a hash of the source). auto: K and N from a Slurm array (SLURM_ARRAY_TASK_ID, _MIN, _STEP, _COUNT) or a Cloud Run job (CLOUD_RUN_TASK_INDEX, _COUNT); auto/N: K from JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch).")
    static let progress: FlagKey = .flag("progress", help: "Show the progress bar even when stderr is not a terminal.")
    static let noProgress: FlagKey = .flag("no-progress", help: "Never show the progress bar.")
    static let stallTimeout: ValueKey<Double> = .value("stall-timeout", valueName: "DURATION", help: "When for DURATION no line completes and no byte arrives (waiting for a list read from a pipe does not count), stop the run as an interrupt does: what is in flight is cancelled, --save-remaining and --save-failed are written, the summary says so, and the exit code is 8 (s, m, h, d; 0 turns it off).", defaultDescription: "10m", parser: ValueParsers.duration)
    static let saveFailed: TextKey = .value("save-failed", valueName: "FILE", help: "At the end (also after Ctrl-C or SIGTERM), write the lines that failed, as written, one per line, atomically: imgfetch prefetch FILE runs only them. Malformed lines are not in it.", completion: .file)
}
